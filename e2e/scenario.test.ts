import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { loadScenario, parseScenario, ScenarioError } from './scenario.js';

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
