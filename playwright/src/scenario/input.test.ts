import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { loadScenario, parseScenario, ScenarioError } from './input.js';

const minimal = {
  description: 'says hello',
  steps: [{ op: 'initialize' }, { op: 'new_session' }, { op: 'prompt', text: 'hi' }],
};

test('defaults are applied to a minimal scenario', () => {
  const s = parseScenario(minimal, 'x/input.json');
  expect(s.steps[0]).toEqual({ op: 'initialize', protocolVersion: 1 });
  expect(s.steps[2]).toEqual({ op: 'prompt', text: 'hi', expectStopReason: 'end_turn' });
  expect(s.clientCapabilities).toEqual({
    fs: { readTextFile: false, writeTextFile: false },
    terminal: false,
  });
  expect(s.permissions).toEqual([]);
  expect(s.flags).toEqual({ overridden: false });
  expect(s.timeoutMs).toBe(30_000);
});

test('errors name the file and the field', () => {
  expect(() =>
    parseScenario(
      { ...minimal, steps: [{ op: 'initialize' }, { op: 'prompt', text: '' }] },
      'fx/a/input.json',
    ),
  ).toThrow(/^fx\/a\/input\.json: invalid scenario\n {2}steps\[1\]\.text: Too small/);
  expect(() => parseScenario({ ...minimal, description: 'two\nlines' }, 'f.json')).toThrow(
    'f.json: invalid scenario\n  description: must be one line',
  );
  expect(() => parseScenario({ ...minimal, permissions: ['maybe'] }, 'f.json')).toThrow(
    /permissions\[0\]: Invalid option/,
  );
  expect(() => parseScenario({ ...minimal, colour: 1 }, 'f.json')).toThrow(
    /\(root\): Unrecognized key: "colour"/,
  );
});

test('structural rules: one session, load after restart, cancel expects cancelled', () => {
  expect(() =>
    parseScenario(
      { ...minimal, steps: [{ op: 'initialize' }, { op: 'new_session' }, { op: 'new_session' }] },
      'f',
    ),
  ).toThrow('steps: has 2 new_session steps; a scenario records exactly one session log');
  expect(() =>
    parseScenario(
      { ...minimal, steps: [{ op: 'initialize' }, { op: 'new_session' }, { op: 'load_session' }] },
      'f',
    ),
  ).toThrow('steps[2]: load_session must follow a restart');
  expect(() =>
    parseScenario(
      {
        ...minimal,
        steps: [{ op: 'new_session' }, { op: 'prompt', text: 'x', cancel: { after: 'first_message_chunk' } }],
      },
      'f',
    ),
  ).toThrow('steps[1].expectStopReason: a prompt with a cancel point must expect "cancelled"');
  expect(() => parseScenario({ ...minimal, flags: { workspaceParent: '../up' } }, 'f')).toThrow(
    /flags\.workspaceParent: must not contain "\.\."/,
  );
  const ok = parseScenario(
    {
      ...minimal,
      steps: [
        { op: 'initialize' },
        { op: 'new_session' },
        { op: 'prompt', text: 'a', expectStopReason: 'cancelled', cancel: { afterUpdates: 2 } },
        { op: 'restart' },
        { op: 'initialize' },
        { op: 'load_session' },
      ],
      flags: { overridden: true, workspaceParent: 'packages/app' },
    },
    'f',
  );
  expect(ok.flags).toEqual({ overridden: true, workspaceParent: 'packages/app' });
});

test('loadScenario reports unreadable and non-JSON files by path', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'scenario-test-'));
  try {
    const file = join(dir, 'input.json');
    await expect(loadScenario(file)).rejects.toThrow(`${file}: cannot read (ENOENT)`);
    await writeFile(file, '{ nope');
    await expect(loadScenario(file)).rejects.toThrow(`${file}: not valid JSON`);
    await writeFile(file, JSON.stringify(minimal));
    await expect(loadScenario(file)).resolves.toMatchObject({ description: 'says hello' });
    // A byte order mark (some editors write one) is fine; bytes that are not UTF-8 are named.
    await writeFile(file, `\ufeff${JSON.stringify(minimal)}`);
    await expect(loadScenario(file)).resolves.toMatchObject({ description: 'says hello' });
    await writeFile(file, Buffer.from('{\n"description": "caf\xe9"}', 'latin1'));
    await expect(loadScenario(file)).rejects.toThrow(
      new ScenarioError(`${file}:2: not valid UTF-8 (byte 0xe9 at column 20); save the file as UTF-8`),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a prompt may expect a JSON-RPC error instead of a stop reason', () => {
  const s = parseScenario(
    { ...minimal, steps: [{ op: 'new_session' }, { op: 'prompt', text: 'x', expectError: 'Unauthorized' }] },
    'f',
  );
  expect(s.steps[1]).toEqual({
    op: 'prompt',
    text: 'x',
    expectStopReason: 'end_turn',
    expectError: 'Unauthorized',
  });
});

test('a scenario may name the agent it runs; left out, none is set', () => {
  expect(parseScenario(minimal, 'f').agent).toBeUndefined();
  expect(parseScenario({ ...minimal, agent: 'sdk-example' }, 'f').agent).toBe('sdk-example');
  expect(() => parseScenario({ ...minimal, agent: 'SDK Example' }, 'fx/s/input.json')).toThrow(
    'fx/s/input.json: invalid scenario\n  agent: must be an agent name like "sdk-example" (lower case, digits, . _ -)',
  );
});

const session = [{ op: 'initialize' }, { op: 'new_session' }];
/** The ScenarioError message of `steps`, or 'ok'. */
function issues(extra: Record<string, unknown>): string {
  try {
    parseScenario({ description: 'd', steps: session, ...extra }, 's/input.json');
    return 'ok';
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    return e.message.split('\n').slice(1, -1).join('\n');
  }
}

test('a prompt gives exactly one of text and content; content blocks are ACP v1 content blocks, strictly', () => {
  const prompt = (p: Record<string, unknown>) => ({ steps: [...session, { op: 'prompt', ...p }] });
  expect(issues(prompt({}))).toBe(
    '  steps[2]: give exactly one of "text" (a string) or "content" (an array of ACP content blocks)',
  );
  expect(issues(prompt({ text: 'a', content: [{ type: 'text', text: 'b' }] }))).toBe(
    '  steps[2]: give exactly one of "text" (a string) or "content" (an array of ACP content blocks)',
  );
  expect(issues(prompt({ content: [] }))).toMatch(/^ {2}steps\[2\]\.content: Too small/);
  expect(issues(prompt({ content: [{ type: 'resource_link', url: 'file:///x', name: 'x' }] }))).toBe(
    '  steps[2].content[0].uri: Invalid input: expected string, received undefined\n' +
      '  steps[2].content[0]: Unrecognized key: "url"',
  );
  expect(issues(prompt({ content: [{ type: 'video', data: '' }] }))).toMatch(
    /^ {2}steps\[2\]\.content\[0\]\.type: Invalid discriminator value\. Expected 'text' \| 'image' \| 'audio' \| 'resource_link' \| 'resource'/,
  );
  expect(issues(prompt({ content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] }))).toBe(
    '  steps[2].content[0].data: must be base64 (the bytes of the image, audio or blob)',
  );
  expect(issues(prompt({ content: [{ type: 'resource', resource: { uri: 'file:///x' } }] }))).toMatch(
    /^ {2}steps\[2\]\.content\[0\]\.resource: Invalid input/,
  );
  const ok = parseScenario(
    {
      description: 'd',
      steps: [
        ...session,
        {
          op: 'prompt',
          content: [
            { type: 'text', text: 'see' },
            { type: 'resource_link', uri: 'file://{{cwd}}/a.txt', name: 'a.txt' },
            { type: 'resource', resource: { uri: 'file://{{cwd}}/b.txt', text: 'b' } },
          ],
        },
      ],
    },
    'f',
  );
  expect(ok.steps[2]).toEqual({
    op: 'prompt',
    content: [
      { type: 'text', text: 'see' },
      { type: 'resource_link', uri: 'file://{{cwd}}/a.txt', name: 'a.txt' },
      { type: 'resource', resource: { uri: 'file://{{cwd}}/b.txt', text: 'b' } },
    ],
    expectStopReason: 'end_turn',
  });
});

test('root placeholders in prompts and agentConfig must be known roots; {{workspaceParent}} needs the flag', () => {
  const known =
    '(known: {{cwd}}, {{persist}}, {{spill}}, {{home}}, {{root}}, {{realHome}}, {{install}}, {{project}}, {{user}})';
  expect(
    issues({
      steps: [
        ...session,
        { op: 'prompt', content: [{ type: 'resource_link', uri: 'file://{{cdw}}/a', name: 'a' }] },
      ],
    }),
  ).toBe(`  steps[2].content[0].uri: unknown root placeholder {{cdw}} ${known}`);
  expect(issues({ steps: [...session, { op: 'prompt', text: 'in {{workspaceParent}}' }] })).toBe(
    '  steps[2].text: unknown root placeholder {{workspaceParent}} ({{workspaceParent}} needs flags.workspaceParent)',
  );
  expect(
    issues({
      steps: [...session, { op: 'prompt', text: 'in {{workspaceParent}}' }],
      flags: { workspaceParent: 'pkg/app' },
    }),
  ).toBe('ok');
  expect(issues({ agentConfig: { tools: { env: { DATA: '{{tmp}}/d' } } } })).toBe(
    `  agentConfig.tools.env.DATA: unknown root placeholder {{tmp}} ${known}`,
  );
  // Normalization placeholders are not root placeholders: sent as written.
  expect(issues({ steps: [...session, { op: 'prompt', text: 'id {{sessionId:1}}' }] })).toBe('ok');
});

test('cancel points: before the first update and after a silence; agentConfig is a JSON object', () => {
  const cancel = (c: unknown) => ({
    steps: [...session, { op: 'prompt', text: 'x', expectStopReason: 'cancelled', cancel: c }],
  });
  expect(issues(cancel({ before: 'first_update' }))).toBe('ok');
  expect(issues(cancel({ afterSilenceMs: 300 }))).toBe('ok');
  expect(issues(cancel({ afterSilenceMs: 0 }))).toBe(
    '  steps[2].cancel.afterSilenceMs: Too small: expected number to be >0',
  );
  expect(issues(cancel({ before: 'first_chunk' }))).toMatch(/^ {2}steps\[2\]\.cancel: Invalid input/);
  expect(issues({ agentConfig: { maxStepsPerTurn: 2, compaction: { budgetTokens: 1500 } } })).toBe('ok');
  expect(issues({ agentConfig: [1] })).toMatch(
    /^ {2}agentConfig: Invalid input: expected record, received array/,
  );
});

test('a kill point: no cancel, no expectation, then restart and load_session before any other prompt', () => {
  const killed = (p: Record<string, unknown>, after: unknown[]) => ({
    steps: [...session, { op: 'prompt', text: 'x', kill: { afterUpdates: 2 }, ...p }, ...after],
  });
  const reload = [
    { op: 'restart' },
    { op: 'initialize' },
    { op: 'load_session' },
    { op: 'prompt', text: 'y' },
  ];
  expect(issues(killed({}, reload))).toBe('ok');
  expect(issues(killed({}, []))).toBe(
    '  steps[2].kill: a prompt with a kill point must be followed by a "restart" step (the killed process is gone)',
  );
  expect(issues(killed({}, [{ op: 'prompt', text: 'y' }]))).toBe(
    '  steps[3]: a prompt with a kill point must be followed by a "restart" step (the killed process is gone)',
  );
  expect(issues(killed({}, [{ op: 'restart' }, { op: 'initialize' }, { op: 'prompt', text: 'y' }]))).toBe(
    '  steps[3]: the restart after a killed prompt must be followed by "load_session" (or "resume_session") before any other prompt',
  );
  expect(issues(killed({ expectStopReason: 'cancelled', cancel: { afterUpdates: 1 } }, reload))).toBe(
    '  steps[2].kill: a prompt has a cancel point or a kill point, not both\n' +
      '  steps[2].expectStopReason: a killed prompt gets no response, so it expects nothing: drop it',
  );
  expect(issues(killed({ expectError: 'boom' }, reload))).toBe(
    '  steps[2].expectError: a killed prompt gets no response, so it expects nothing: drop it',
  );
});

test('session steps: they address the Nth new_session, a list cwd is absolute, one session is left at the end', () => {
  const steps = (...rest: unknown[]) => ({ ...minimal, steps: [{ op: 'initialize' }, ...rest] });
  const ok = parseScenario(
    steps(
      { op: 'new_session' },
      { op: 'set_mode', modeId: 'auto' },
      { op: 'set_config_option', configId: 'model', value: 'deepseek-reasoner' },
      { op: 'new_session' },
      { op: 'prompt', session: 2, text: 'hi' },
      { op: 'list_sessions', cwd: '{{cwd}}' },
      { op: 'list_sessions' },
      { op: 'close_session', session: 2 },
      { op: 'delete_session', session: 2 },
      { op: 'resume_session' },
      { op: 'restart' },
      { op: 'initialize' },
      { op: 'load_session' },
      { op: 'set_mode', modeId: 'nope', expectError: 'unknown mode' },
    ),
    'f',
  );
  expect(ok.steps[6]).toEqual({ op: 'list_sessions', cwd: '{{cwd}}' });
  expect(ok.steps[2]).toEqual({ op: 'set_mode', modeId: 'auto' });

  expect(() => parseScenario(steps({ op: 'resume_session' }), 'f')).toThrow(
    'steps[1]: resume_session needs an earlier new_session',
  );
  expect(() =>
    parseScenario(steps({ op: 'new_session' }, { op: 'set_mode', session: 2, modeId: 'auto' }), 'f'),
  ).toThrow(
    'steps[2]: set_mode needs an earlier new_session (session 2 is the one the 2nd new_session creates)',
  );
  expect(() =>
    parseScenario(steps({ op: 'new_session' }, { op: 'new_session' }, { op: 'list_sessions' }), 'f'),
  ).toThrow(
    'steps: has 2 new_session steps; a scenario records exactly one session log: delete_session every session but one before the end',
  );
  expect(() => parseScenario(steps({ op: 'new_session' }, { op: 'delete_session' }), 'f')).toThrow(
    'steps: deletes every session it creates; a scenario records exactly one session log: keep one',
  );
  expect(() =>
    parseScenario(steps({ op: 'new_session' }, { op: 'list_sessions', cwd: 'work' }), 'f'),
  ).toThrow('steps[2].cwd: must be an absolute path or start with a root placeholder such as "{{cwd}}"');
  expect(() => parseScenario(steps({ op: 'new_session', cwd: 'lib' }), 'f')).toThrow(
    'steps[1].cwd: must be an absolute path or start with a root placeholder such as "{{cwd}}"',
  );
  expect(() => parseScenario(steps({ op: 'new_session', cwd: '{{workspaceParent}}' }), 'f')).toThrow(
    'steps[1].cwd: unknown root placeholder {{workspaceParent}} ({{workspaceParent}} needs flags.workspaceParent)',
  );
  expect(() =>
    parseScenario(steps({ op: 'new_session' }, { op: 'list_sessions', cwd: '{{nope}}/x' }), 'f'),
  ).toThrow(/steps\[2\]\.cwd: unknown root placeholder \{\{nope\}\}/);
  // A session created after a restart is not loadable until the next restart.
  expect(() =>
    parseScenario(
      steps(
        { op: 'new_session' },
        { op: 'delete_session' },
        { op: 'restart' },
        { op: 'initialize' },
        { op: 'new_session' },
        { op: 'load_session', session: 2 },
      ),
      'f',
    ),
  ).toThrow('steps[6]: load_session must follow a restart');
  expect(() => parseScenario(steps({ op: 'new_session' }, { op: 'close_session', session: 0 }), 'f')).toThrow(
    /steps\[2\]\.session: Too small/,
  );
});
