// The driver's session steps (list, resume, close, delete, set_mode, set_config_option) against our agent
// with its replay overlay: no model is called, so a header-only fixture is all the overlay needs.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildHeader, makeRecords, serializeLog } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { createTestRoots, removeTestRoots, rootMap, type TestRoots } from '../roots/roots.js';
import { REPO_ROOT } from '../scenario/corpus.js';
import { expandScenarioRoots, parseScenario, type ScenarioInput } from '../scenario/input.js';
import { agentEnv, type DriverOptions, driveScenario } from './driver.js';

const ourAgent = [
  process.execPath,
  join(REPO_ROOT, 'agent/dist/main.js'),
  '--overlay',
  join(REPO_ROOT, 'agent/overlays/replay.json'),
];

let roots: TestRoots;
test.beforeEach(async () => {
  roots = await createTestRoots('driver-sessions-test');
});
test.afterEach(async () => {
  await removeTestRoots(roots);
});

async function options(
  input: Omit<ScenarioInput, 'description'>,
  agentConfig?: Record<string, unknown>,
): Promise<DriverOptions> {
  const fixture = join(roots.root, 'session.jsonl');
  await writeFile(fixture, serializeLog(makeRecords([buildHeader({ cwd: '{{cwd}}' })])));
  let config: string | undefined;
  if (agentConfig) {
    config = join(roots.root, 'agent-config.json');
    await writeFile(config, JSON.stringify(agentConfig));
  }
  return {
    command: ourAgent,
    env: agentEnv({
      mode: 'replay',
      scenario: 'driver-sessions-test',
      ...roots,
      fixture,
      ...(config ? { agentConfig: config } : {}),
    }),
    processCwd: roots.cwd,
    sessionCwd: roots.cwd,
    fsRoot: roots.root,
    scenario: expandScenarioRoots(
      parseScenario({ description: 'driver sessions test', ...input }, 'driver-sessions-test/input.json'),
      rootMap(roots),
    ),
    name: 'driver-sessions-test',
    step: (title, body) => test.step(title, body),
  };
}

type Message = { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown };
const messages = (r: { stdout: { text: string }[] }): Message[] => r.stdout.map((l) => JSON.parse(l.text));

test('session steps drive list (every page), set_mode, set_config_option, close, delete and resume', async () => {
  const r = await driveScenario(
    await options(
      {
        steps: [
          { op: 'initialize' },
          { op: 'new_session' },
          { op: 'set_mode', modeId: 'auto' },
          { op: 'set_config_option', configId: 'model', value: 'deepseek-reasoner' },
          { op: 'new_session' },
          { op: 'list_sessions', cwd: '{{cwd}}' },
          { op: 'close_session', session: 2 },
          { op: 'delete_session', session: 2 },
          { op: 'restart' },
          { op: 'initialize' },
          { op: 'resume_session' },
          { op: 'set_mode', modeId: 'yolo', expectError: 'unknown mode "yolo"' },
          { op: 'list_sessions' },
        ],
      },
      { sessionList: { pageSize: 1 } },
    ),
  );
  expect(r.problems).toEqual([]);
  expect(r.exits).toEqual([0, 0]);
  expect(r.sessionId).toBe('sess-1');
  const msgs = messages(r);
  const updates = msgs.filter((m) => m.method === 'session/update').map((m) => m.params!.update);
  expect(updates).toEqual([
    { sessionUpdate: 'current_mode_update', currentModeId: 'auto' },
    expect.objectContaining({ sessionUpdate: 'config_option_update' }),
  ]);
  // Two pages for two sessions, then one after the delete; the first page names the next cursor.
  const lists = msgs.filter(
    (m): m is Message & { result: { sessions: { sessionId: string }[]; nextCursor?: string } } =>
      typeof m.result === 'object' && m.result !== null && 'sessions' in m.result,
  );
  expect(lists.map((m) => m.result.sessions.map((s) => s.sessionId))).toEqual([
    ['sess-2'],
    ['sess-1'],
    ['sess-1'],
  ]);
  expect(typeof lists[0]!.result.nextCursor).toBe('string');
  const second = messages({ stdout: r.stdout.filter((l) => l.process === 1) });
  const resumed = second.find((m) => (m.result as { modes?: unknown } | undefined)?.modes);
  expect(resumed?.result).toMatchObject({
    modes: { currentModeId: 'auto' },
    configOptions: [
      { id: 'mode', currentValue: 'auto' },
      { id: 'model', currentValue: 'deepseek-reasoner' },
    ],
  });
  expect(await readdir(roots.persistRoot)).toEqual(['sess-1.jsonl']);
});

test('a session step whose expected error does not come, or another error, is a problem', async () => {
  const r = await driveScenario(
    await options({
      steps: [
        { op: 'initialize' },
        { op: 'new_session' },
        { op: 'set_mode', modeId: 'auto', expectError: 'unknown mode' },
        { op: 'set_config_option', configId: 'model', value: 'gpt-x', expectError: 'no such thing' },
      ],
    }),
  );
  expect(r.problems).toEqual([
    'step 3 (session/set_mode auto): expected a JSON-RPC error containing "unknown mode", got a result',
    expect.stringMatching(
      /^step 4 \(session\/set_config_option model=gpt-x\): expected a JSON-RPC error containing "no such thing", got error -32602: .*unknown model "gpt-x"/,
    ),
  ]);
});

test('an unexpected JSON-RPC error of a session step fails the run naming the step', async () => {
  const err = await driveScenario(
    await options({
      steps: [{ op: 'initialize' }, { op: 'new_session' }, { op: 'set_mode', modeId: 'yolo' }],
    }),
  ).catch((e: unknown) => e);
  expect((err as Error).message).toMatch(
    /^driver-sessions-test: step 3 \(session\/set_mode yolo\): the agent answered with JSON-RPC error -32602: .*unknown mode "yolo"/,
  );
});
