import { expect, test } from '@playwright/test';
import { Normalizer, normalizeJsonlText, normalizeStdout } from './normalize.js';

const root = '/tmp/acp-snap-0123abcd-Xy12Zq';
const roots = {
  cwd: `${root}/work`,
  persist: `${root}/persist`,
  spill: `${root}/spill`,
  home: `${root}/home`,
};
const aliases = { cwd: [`/private${root}/work`] };

test('session ids, JSON-RPC ids, roots and timestamps become numbered placeholders', () => {
  const lines = [
    { process: 0, text: '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}' },
    { process: 0, text: '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess-aaaa"}}' },
    {
      process: 0,
      text: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'session/request_permission',
        params: { sessionId: 'sess-aaaa', toolCall: { locations: [{ path: `${roots.cwd}/a.txt` }] } },
      }),
    },
    {
      process: 0,
      text: JSON.stringify({
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: 'sess-aaaa',
          update: {
            text: `log at ${roots.persist}/sess-aaaa.jsonl, spilled to /private${root}/work/x and ${roots.spill}/1.txt`,
            startedAt: 1_735_689_600_000,
            durationMs: 17,
            pid: 4242,
            when: '2025-01-01T00:00:00.000Z then 2025-01-01T00:00:01Z then 2025-01-01T00:00:00.000Z',
            count: 3,
          },
        },
      }),
    },
    { process: 1, text: '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}' },
  ];
  const out = normalizeStdout(lines, { roots, aliases });
  expect(out).toEqual([
    '{"jsonrpc":"2.0","id":"{{id:1}}","result":{"protocolVersion":1}}',
    '{"jsonrpc":"2.0","id":"{{id:2}}","result":{"sessionId":"{{sessionId:1}}"}}',
    '{"jsonrpc":"2.0","id":"{{id:3}}","method":"session/request_permission","params":{"sessionId":"{{sessionId:1}}","toolCall":{"locations":[{"path":"{{cwd}}/a.txt"}]}}}',
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: '{{sessionId:1}}',
        update: {
          text: 'log at {{persist}}/{{sessionId:1}}.jsonl, spilled to {{cwd}}/x and {{spill}}/1.txt',
          startedAt: '{{timestamp:1}}',
          durationMs: '{{duration}}',
          pid: '{{pid:1}}',
          when: '{{timestamp:2}} then {{timestamp:3}} then {{timestamp:2}}',
          count: 3,
        },
      },
    }),
    // A fresh process: its id 0 is not the first process's id 0.
    '{"jsonrpc":"2.0","id":"{{id:4}}","result":{"protocolVersion":1}}',
  ]);
});

test('normalization is deterministic and idempotent', () => {
  const lines = [
    { process: 0, text: '{"jsonrpc":"2.0","id":5,"result":{"sessionId":"s-1234"}}' },
    { process: 0, text: `{"jsonrpc":"2.0","id":6,"result":{"sessionId":"s-5678","cwd":"${roots.cwd}"}}` },
    {
      process: 0,
      text: '{"jsonrpc":"2.0","method":"x","params":{"sessionId":"s-1234","at":"2025-01-01T00:00:00Z"}}',
    },
  ];
  const once = normalizeStdout(lines, { roots });
  expect(normalizeStdout(lines, { roots })).toEqual(once);
  const twice = normalizeStdout(
    once.map((text) => ({ text, process: 0 })),
    { roots },
  );
  expect(twice).toEqual(once);
  expect(once[1]).toBe(
    '{"jsonrpc":"2.0","id":"{{id:2}}","result":{"sessionId":"{{sessionId:2}}","cwd":"{{cwd}}"}}',
  );
});

test('a generated root from another run and longer sibling names are handled', () => {
  const n = new Normalizer({ roots: { cwd: '/tmp/acp-snap-0123abcd-Xy12Zq/work' } });
  expect(n.string('/tmp/acp-snap-0123abcd-Xy12Zq/work/a /tmp/acp-snap-0123abcd-Xy12Zq/workshop')).toBe(
    '{{cwd}}/a {{root}}/workshop',
  );
  expect(n.string('/tmp/acp-snap-ffffffff-abcdef/spill/1.txt')).toBe('{{root}}/spill/1.txt');
});

test('a JSONL text (the projected log) keeps its trailing newline and numbering', () => {
  const text = '{"type":"session/header","sessionId":"abc-1"}\n{"event":{"type":"x","path":"/h/abc-1"}}\n';
  expect(normalizeJsonlText(text)).toBe(
    '{"type":"session/header","sessionId":"{{sessionId:1}}"}\n{"event":{"type":"x","path":"/h/{{sessionId:1}}"}}\n',
  );
  expect(normalizeJsonlText(normalizeJsonlText(text))).toBe(normalizeJsonlText(text));
});

test('a `__proto__` key (JSON.parse keeps it as data) stays a key, and normalizing twice changes nothing', () => {
  const line = '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"id":7,"sessionId":"s-1"},"ok":true}}';
  const once = normalizeStdout([{ text: line, process: 0 }]);
  expect(once).toEqual([
    '{"jsonrpc":"2.0","id":"{{id:1}}","result":{"__proto__":{"id":7,"sessionId":"{{sessionId:1}}"},"ok":true}}',
  ]);
  expect(normalizeStdout([{ text: once[0]!, process: 0 }])).toEqual(once);
  expect(normalizeJsonlText(`${line}\n`)).toBe(`${once[0]}\n`);
});

test("a path streamed in pieces keeps its slices when a session's usage or title update lands between two pieces", () => {
  const update = (u: Record<string, unknown>) => ({
    process: 0,
    text: JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: u } }),
  });
  const chunk = (text: string) =>
    update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  const cut = 2;
  const lines = [
    chunk(' from '),
    chunk(roots.cwd.slice(0, cut)),
    update({ sessionUpdate: 'usage_update', used: 512, size: 200000 }),
    update({ sessionUpdate: 'session_info_update', title: 'Where am I?' }),
    chunk(`${roots.cwd.slice(cut)}.`),
    // A tool call ends the message: a path piece after it is another text.
    update({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read' }),
    chunk(roots.cwd.slice(0, cut)),
  ];
  const texts = normalizeStdout(lines, { roots }).map((l) => JSON.parse(l).params.update.content?.text);
  expect(texts).toEqual([
    ' from ',
    `{{cwd[0:${cut}]}}`,
    undefined,
    undefined,
    `{{cwd[${cut}:]}}.`,
    undefined,
    roots.cwd.slice(0, cut),
  ]);
});
