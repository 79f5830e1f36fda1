import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { agentEnv, DriverError, type DriverOptions, runScenario } from './driver.js';
import { createTestRoots, removeTestRoots, type TestRoots } from './roots.js';
import { parseScenario, type ScenarioInput } from './scenario.js';
import { SDK_EXAMPLE_AGENT } from './scenarios.js';

const exampleAgent = [process.execPath, SDK_EXAMPLE_AGENT];
const fakeAgent = (mode: string) => [
  process.execPath,
  join(process.cwd(), 'e2e/test-agents/fake-agent.mjs'),
  mode,
];

let roots: TestRoots;
test.beforeEach(async () => {
  roots = await createTestRoots('driver-test');
});
test.afterEach(async () => {
  await removeTestRoots(roots);
});

function options(command: string[], input: Omit<ScenarioInput, 'description'>): DriverOptions {
  return {
    command,
    env: agentEnv({ mode: 'replay', scenario: 'driver-test', ...roots }),
    processCwd: process.cwd(),
    sessionCwd: roots.cwd,
    fsRoot: roots.root,
    scenario: parseScenario({ description: 'driver test', ...input }, 'driver-test/input.json'),
    name: 'driver-test',
    step: (title, body) => test.step(title, body),
  };
}

const start = [{ op: 'initialize' }, { op: 'new_session' }] as const;

test('drives the SDK example agent: permission allowed, raw stdout kept line for line', async () => {
  const r = await runScenario(
    options(exampleAgent, { steps: [...start, { op: 'prompt', text: 'go' }], permissions: ['allow'] }),
  );
  expect(r.problems).toEqual([]);
  expect(r.exits).toEqual([0]);
  expect(r.sessionId).toMatch(/^[0-9a-f]{32}$/);
  expect(r.agentInfo).toBeUndefined(); // the example's initialize result carries none
  const msgs = r.stdout.map((l) => JSON.parse(l.text));
  expect(msgs[0]).toEqual({
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: 1, agentCapabilities: { loadSession: false } },
  });
  expect(r.stdout[0]!.text).toBe(
    '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":false}}}',
  );
  expect(msgs.filter((m) => m.method === 'session/request_permission')).toHaveLength(1);
  expect(msgs.at(-1)).toMatchObject({ result: { stopReason: 'end_turn' } });
  expect(JSON.stringify(msgs)).toContain("I've successfully updated the configuration");
});

test('a permission request as cancel point cancels; an agent ignoring it is caught', async () => {
  // The SDK example answers a cancelled permission by ending the turn normally instead of with "cancelled".
  const r = await runScenario(
    options(exampleAgent, {
      steps: [
        ...start,
        { op: 'prompt', text: 'go', expectStopReason: 'cancelled', cancel: { after: 'permission_request' } },
      ],
    }),
  );
  expect(r.problems).toEqual([
    'step 3 (session/prompt "go" (cancel {"after":"permission_request"})): expected stop reason "cancelled", got "end_turn"',
  ]);
  const text = r.stdout.map((l) => l.text).join('\n');
  expect(text).not.toContain('successfully updated');
  expect(text).not.toContain('skip the configuration update');
});

test('a wrong stop reason and a missing permission answer are reported as problems', async () => {
  const r = await runScenario(
    options(exampleAgent, {
      steps: [...start, { op: 'prompt', text: 'go', expectStopReason: 'max_tokens' }],
    }),
  );
  expect(r.problems).toEqual([
    `driver-test: the agent asked permission #1 (tool call call_2) but input.json "permissions" has only 0 answer(s); add one ("allow", "reject" or "cancel")`,
    `step 3 (session/prompt "go"): the agent answered with JSON-RPC error -32602: Invalid params: driver-test: the agent asked permission #1 (tool call call_2) but input.json "permissions" has only 0 answer(s); add one ("allow", "reject" or "cancel")`,
  ]);
});

test('fs requests are served from the workspace only, when the capability is offered', async () => {
  await writeFile(join(roots.cwd, 'in.txt'), 'abc');
  const r = await runScenario(
    options(fakeAgent('fs'), {
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      steps: [...start, { op: 'prompt', text: `${roots.cwd}/in.txt ${roots.cwd}/sub/out.txt` }],
    }),
  );
  expect(r.problems).toEqual([]);
  expect(await readFile(join(roots.cwd, 'sub/out.txt'), 'utf8')).toBe('ABC');
  const text = r.stdout.map((l) => l.text).join('\n');
  expect(text).toContain('read: abc');
  expect(text).toContain('refused: Invalid params');
});

test('the agent gets only the contract environment', async () => {
  const r = await runScenario(
    options(fakeAgent('env'), { steps: [...start, { op: 'prompt', text: 'env' }] }),
  );
  const chunk = r.stdout.map((l) => JSON.parse(l.text)).find((m) => m.method === 'session/update');
  const env = JSON.parse(chunk.params.update.content.text);
  expect(Object.keys(env)).toEqual(
    expect.arrayContaining([
      'ACP_SNAPSHOT_MODE',
      'ACP_SNAPSHOT_SCENARIO',
      'ACP_SNAPSHOT_PERSIST_ROOT',
      'HOME',
      'PATH',
      'TZ',
    ]),
  );
  expect(r.agentInfo).toEqual({ name: 'fake-agent', version: '1.0.0' });
  expect(env.HOME).toBe(roots.home);
  expect(env.TZ).toBe('UTC');
  expect(env.DEEPSEEK_API_KEY).toBeUndefined();
  expect(
    Object.keys(env).filter(
      (k) => !/^(ACP_SNAPSHOT_|HOME$|PATH$|LANG$|TZ$)/.test(k) && k !== 'PWD' && k !== 'SHLVL' && k !== '_',
    ),
  ).toEqual([]);
});

test('a non-JSON stdout line fails naming the line', async () => {
  const err = await runScenario(options(fakeAgent('noisy'), { steps: [...start] })).catch((e) => e);
  expect(err).toBeInstanceOf(DriverError);
  expect(err.message).toBe(
    'agent wrote a non-JSON line to stdout (process 1, stdout line 1): "debug: initialized"\nstdout must carry ACP messages only; log to stderr.',
  );
  expect((err as DriverError).result.stdout[0]!.text).toBe('debug: initialized');
});

test('a stdout line that is not UTF-8 fails naming the line and the byte, not a snapshot of U+FFFD', async () => {
  const err = await runScenario(options(fakeAgent('latin1'), { steps: [...start] })).catch((e) => e);
  expect(err).toBeInstanceOf(DriverError);
  expect(err.message).toBe(
    'agent stdout, process 1, line 1: not valid UTF-8 (byte 0xe9 at column 53); ACP messages are UTF-8 JSON: check how the agent encodes what it writes.',
  );
});

test('a stdout line holding half of a surrogate pair fails naming the process, line and column, though JSON.parse takes it', async () => {
  const err = await runScenario(options(fakeAgent('lone-surrogate'), { steps: [...start] })).catch((e) => e);
  expect(err).toBeInstanceOf(DriverError);
  const line = (err as DriverError).result.stdout[0]!.text;
  expect(line).toBe('{"jsonrpc":"2.0","method":"_note","params":{"title":"Run: echo 😀😀 😀😀\\ud83d"}}');
  expect(JSON.parse(line).params.title).toBe('Run: echo 😀😀 😀😀\ud83d');
  expect(err.message).toBe(
    'agent stdout, process 1, line 1: a lone surrogate escape \\ud83d at column 81, half of a UTF-16 surrogate pair (text cut inside an emoji or other non-BMP character); strict JSON parsers such as serde_json reject the whole message; the agent cut a text inside a character: cut at code point (better: grapheme) boundaries.',
  );
});

test('an agent crash mid-turn fails naming the process, exit code and stderr tail', async () => {
  const err = await runScenario(
    options(fakeAgent('crash'), { steps: [...start, { op: 'prompt', text: 'x' }] }),
  ).catch((e) => e);
  expect(err.message).toBe(
    'agent process 1 exited (3) before the scenario finished; its stderr ends with:\n  fatal: model adapter blew up',
  );
  expect((err as DriverError).result.exits).toEqual([3]);
});

test('a JSON-RPC error where the script needs a result names the step', async () => {
  const steps = [...start, { op: 'restart' }, { op: 'initialize' }, { op: 'load_session' }] as const;
  const err = await runScenario(options(exampleAgent, { steps: [...steps] })).catch((e) => e);
  expect(err.message).toMatch(
    /^driver-test: step 5 \(session\/load\): the agent answered with JSON-RPC error -32601: /,
  );
  expect((err as DriverError).result.exits).toEqual([0, 'SIGKILL']);
});

test('a missing agent binary fails with "agent command not found"', async () => {
  const err = await runScenario(options(['acp-no-such-agent-binary', '--x'], { steps: [...start] })).catch(
    (e) => e,
  );
  expect(err.message).toBe(
    'agent command not found: acp-no-such-agent-binary --x (check use.agentCommand in playwright.config.ts)',
  );
});

test('a timeout kills the whole process group', async () => {
  // The budget covers the fake agent's start and initialize too, so it leaves room for a loaded machine.
  const err = await runScenario(
    options(fakeAgent('hang'), { steps: [...start, { op: 'prompt', text: 'x' }], timeoutMs: 4000 }),
  ).catch((e) => e);
  expect(err.message).toBe(
    `driver-test: timed out after 4000 ms during step 3 (session/prompt "x"); the agent's process group was killed (raise "timeoutMs" in input.json if the scenario is legitimately slow)`,
  );
  const text = (err as DriverError).result.stdout.map((l) => l.text).join('\n');
  const pid = Number(/grandchild (\d+)/.exec(text)?.[1]);
  expect(pid).toBeGreaterThan(0);
  await expect.poll(() => isAlive(pid)).toBe(false);
});

test('an agent that ignores stdin EOF is killed after the grace period and reported', async () => {
  const opts = { ...options(fakeAgent('stubborn'), { steps: [...start] }), exitGraceMs: 300 };
  const r = await runScenario(opts);
  expect(r.problems).toEqual([
    'driver-test: the agent did not exit within the grace period after stdin closed; its process group was killed',
  ]);
  expect(r.exits).toEqual(['SIGKILL']);
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
