import { expect, test } from '@playwright/test';
import type { TestRoots } from '../roots/roots.js';
import { compareSurface, mcpSnapshotText, nonJsonLines, stdoutSnapshotText } from './surfaces.js';

const roots: TestRoots = {
  root: '/tmp/acp-snap-00000000-aaaaaa',
  cwd: '/tmp/acp-snap-00000000-aaaaaa/work',
  persistRoot: '/tmp/acp-snap-00000000-aaaaaa/persist',
  spillRoot: '/tmp/acp-snap-00000000-aaaaaa/spill',
  home: '/tmp/acp-snap-00000000-aaaaaa/home',
  tmp: '/tmp/acp-snap-00000000-aaaaaa.tmp',
  aliases: {},
};

test('stdout snapshot text is normalized JSON lines ending with a newline', () => {
  const text = stdoutSnapshotText(
    [
      { text: '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s-1"}}', process: 0 },
      { text: `{"jsonrpc":"2.0","method":"m","params":{"cwd":"${roots.cwd}/x"}}`, process: 0 },
    ],
    roots,
  );
  expect(text).toBe(
    '{"jsonrpc":"2.0","id":"{{id:1}}","result":{"sessionId":"{{sessionId:1}}"}}\n{"jsonrpc":"2.0","method":"m","params":{"cwd":"{{cwd}}/x"}}\n',
  );
  expect(stdoutSnapshotText([], roots)).toBe('');
  expect(nonJsonLines(text)).toEqual([]);
  expect(nonJsonLines('{}\nnot json\n{"a":1}\n')).toEqual(['line 2: "not json"']);
});

test("the agent profile's normalize patterns apply to the MCP traffic snapshot text, its paths and anytime updates not", () => {
  const call =
    '{"server":"notes","from":"agent","message":{"method":"tools/call","params":{"_meta":{"callId":"exec-84d79771-e7e1-4893-b196-36e09d766b50","turn_id":"01a24569-df6c-7103-a7c5-64e3440db0b6"}}}}';
  const text = `${call}\n{"server":"notes","from":"server","message":{"result":{}}}\n`;
  const rules = {
    paths: ['/message/params'],
    patterns: [
      { pattern: 'exec-[0-9a-f-]{36}', placeholder: 'exec-{{execId}}' },
      { pattern: '"turn_id":"[0-9a-f-]{36}"', placeholder: '"turn_id":"{{turnId}}"' },
    ],
    anytimeUpdates: ['available_commands_update'],
  };
  expect(mcpSnapshotText(text, rules)).toBe(
    `${call.replace(/exec-[0-9a-f-]{36}/, 'exec-{{execId}}').replace(/"turn_id":"[0-9a-f-]{36}"/, '"turn_id":"{{turnId}}"')}\n{"server":"notes","from":"server","message":{"result":{}}}\n`,
  );
  expect(mcpSnapshotText(text, { paths: ['/message'] })).toBe(text);
  expect(mcpSnapshotText('', rules)).toBe('');
});

test("the agent profile's normalize rules apply to the stdout snapshot text", () => {
  const line = (o: object) => ({ text: JSON.stringify({ jsonrpc: '2.0', ...o }), process: 0 });
  const stdout = [
    line({ method: 'session/update', params: { update: { sessionUpdate: 'available_commands_update' } } }),
    line({ id: 0, result: { agentInfo: { version: '1.2.3' }, build: 'build 2026-12-02' } }),
  ];
  const text = stdoutSnapshotText(stdout, roots, {
    paths: ['/result/agentInfo/version'],
    patterns: [{ pattern: 'build \\d{4}-\\d{2}-\\d{2}', placeholder: '{{build}}' }],
    anytimeUpdates: ['available_commands_update'],
  });
  expect(text.split('\n')).toEqual([
    '{"jsonrpc":"2.0","id":"{{id:1}}","result":{"agentInfo":{"version":"{{volatile}}"},"build":"{{build}}"}}',
    '{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"available_commands_update"}}}',
    '',
  ]);
  // No rules: the lines as normalized, in their order on the wire.
  expect(stdoutSnapshotText(stdout, roots).split('\n')[0]).toContain('available_commands_update');
});

test('a replayed log adopts the recorded provider; a recording compares its own', () => {
  const header = (plugin: string) =>
    `${JSON.stringify({ type: 'session/header', sessionId: 's-1', provider: { plugin } })}\n`;
  const replayed = compareSurface('log', header('openai-compatible'), header('replay'), { replayed: true });
  expect(replayed.equal).toBe(true);
  expect(replayed.actual).toContain('"plugin":"openai-compatible"');
  const recorded = compareSurface('log', header('openai-compatible'), header('anthropic'), {
    replayed: false,
  });
  expect(recorded.equal).toBe(false);
  expect(recorded.actual).toContain('"plugin":"anthropic"');
  expect(recorded.cause?.field).toEqual({
    line: 1,
    path: '/provider/plugin',
    change: '[-openai-compatible-]{+anthropic+}',
  });
  // No snapshot yet: nothing equals it, and there is no field to name.
  expect(compareSurface('stdout', undefined, '{}\n', { replayed: true })).toEqual({
    surface: 'stdout',
    expected: undefined,
    actual: '{}\n',
    equal: false,
  });
});
