import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { reapOrphans } from '../process/orphans.js';
import { createTestRoots, removeTestRoots, rootMap, type TestRoots } from '../roots/roots.js';
import { expandScenarioRoots, parseScenario, type ScenarioInput } from '../scenario/input.js';
import type { PromptBlock } from '../scenario/prompt-content.js';
import { SDK_EXAMPLE_AGENT } from '../testing/sdk-example.js';
import { agentEnv, DriverError, type DriverOptions, driveScenario } from './driver.js';

const exampleAgent = [process.execPath, SDK_EXAMPLE_AGENT];
const fakeAgent = (mode: string) => [
  process.execPath,
  join(process.cwd(), 'playwright/src/testing/agents/fake-agent.mjs'),
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
    scenario: expandScenarioRoots(
      parseScenario({ description: 'driver test', ...input }, 'driver-test/input.json'),
      rootMap(roots),
    ),
    name: 'driver-test',
    step: (title, body) => test.step(title, body),
    processRoot: roots.root,
  };
}

/** The agent's messages (stdout lines parsed), of every process. */
const messages = (r: { stdout: { text: string }[] }) => r.stdout.map((l) => JSON.parse(l.text));
/** The text of every agent_message_chunk, in order. */
const chunkTexts = (r: { stdout: { text: string }[] }) =>
  messages(r)
    .filter((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk')
    .map((m) => m.params.update.content.text as string);
/** The result of the prompt request(s): responses carrying a stopReason. */
const stopResults = (r: { stdout: { text: string }[] }) =>
  messages(r)
    .filter((m) => m.result?.stopReason)
    .map((m) => m.result);

const start = [{ op: 'initialize' }, { op: 'new_session' }] as const;

test('drives the SDK example agent: permission allowed, raw stdout kept line for line', async () => {
  const r = await driveScenario(
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
  const r = await driveScenario(
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
  const r = await driveScenario(
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
  const r = await driveScenario(
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
  const r = await driveScenario(
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
  // Node's compile cache, shared by every agent process (docs/contract.md).
  expect(env.NODE_COMPILE_CACHE).toBe('/tmp/acp-snapshot-node-compile-cache');
  // Bun's temporary directory, made beside the test's root and removed with it: an agent compiled with Bun unpacks
  // its native libraries there at each start, not in the machine's /tmp.
  expect(env.BUN_TMPDIR).toBe(`${roots.root}.tmp`);
  expect(existsSync(env.BUN_TMPDIR)).toBe(true);
  expect(env.TMPDIR).toBeUndefined();
  expect(env.DEEPSEEK_API_KEY).toBeUndefined();
  expect(
    Object.keys(env).filter(
      (k) =>
        !/^(ACP_SNAPSHOT_|HOME$|PATH$|LANG$|TZ$|NODE_COMPILE_CACHE$|BUN_TMPDIR$)/.test(k) &&
        k !== 'PWD' &&
        k !== 'SHLVL' &&
        k !== '_',
    ),
  ).toEqual([]);
});

test('a non-JSON stdout line fails naming the line', async () => {
  const err = await driveScenario(options(fakeAgent('noisy'), { steps: [...start] })).catch((e) => e);
  expect(err).toBeInstanceOf(DriverError);
  expect(err.message).toBe(
    'agent wrote a non-JSON line to stdout (process 1, stdout line 1): "debug: initialized"\nstdout must carry ACP messages only; log to stderr.',
  );
  expect((err as DriverError).result.stdout[0]!.text).toBe('debug: initialized');
  expect((err as DriverError).kind).toBe('stdout-violation');
});

test('a stdout line that is not UTF-8 fails naming the line and the byte, not a snapshot of U+FFFD', async () => {
  const err = await driveScenario(options(fakeAgent('latin1'), { steps: [...start] })).catch((e) => e);
  expect(err).toBeInstanceOf(DriverError);
  expect(err.message).toBe(
    'agent stdout, process 1, line 1: not valid UTF-8 (byte 0xe9 at column 53); ACP messages are UTF-8 JSON: check how the agent encodes what it writes.',
  );
  expect((err as DriverError).kind).toBe('stdout-violation');
});

test('a stdout line holding half of a surrogate pair fails naming the process, line and column, though JSON.parse takes it', async () => {
  const err = await driveScenario(options(fakeAgent('lone-surrogate'), { steps: [...start] })).catch(
    (e) => e,
  );
  expect(err).toBeInstanceOf(DriverError);
  const line = (err as DriverError).result.stdout[0]!.text;
  expect(line).toBe('{"jsonrpc":"2.0","method":"_note","params":{"title":"Run: echo 😀😀 😀😀\\ud83d"}}');
  expect(JSON.parse(line).params.title).toBe('Run: echo 😀😀 😀😀\ud83d');
  expect(err.message).toBe(
    'agent stdout, process 1, line 1: a lone surrogate escape \\ud83d at column 81, half of a UTF-16 surrogate pair (text cut inside an emoji or other non-BMP character); strict JSON parsers such as serde_json reject the whole message; the agent cut a text inside a character: cut at code point (better: grapheme) boundaries.',
  );
});

test('a request the agent answers with a JSON-RPC error fails naming the step, and carries the step as data', async () => {
  // The SDK example declares no loadSession: session/load is answered with an error.
  const err = await driveScenario(
    options(exampleAgent, { steps: [...start, { op: 'restart' }, { op: 'load_session' }] }),
  ).catch((e) => e);
  expect(err).toBeInstanceOf(DriverError);
  expect((err as DriverError).kind).toBe('rpc-error');
  expect((err as DriverError).step).toBe('step 4 (session/load)');
  expect(err.message).toMatch(
    /^driver-test: step 4 \(session\/load\): the agent answered with JSON-RPC error -?\d+: /,
  );
});

test('an agent crash mid-turn fails naming the process, exit code and stderr tail', async () => {
  const err = await driveScenario(
    options(fakeAgent('crash'), { steps: [...start, { op: 'prompt', text: 'x' }] }),
  ).catch((e) => e);
  expect(err.message).toBe(
    'agent process 1 exited (3) before the scenario finished; its stderr ends with:\n  fatal: model adapter blew up',
  );
  expect((err as DriverError).result.exits).toEqual([3]);
  expect((err as DriverError).kind).toBe('crash');
});

test('a JSON-RPC error where the script needs a result names the step', async () => {
  const steps = [...start, { op: 'restart' }, { op: 'initialize' }, { op: 'load_session' }] as const;
  const err = await driveScenario(options(exampleAgent, { steps: [...steps] })).catch((e) => e);
  expect(err.message).toMatch(
    /^driver-test: step 5 \(session\/load\): the agent answered with JSON-RPC error -32601: /,
  );
  expect((err as DriverError).result.exits).toEqual([0, 'SIGKILL']);
  expect((err as DriverError).kind).toBe('rpc-error');
});

test('a missing agent binary fails with "agent command not found"', async () => {
  const err = await driveScenario(options(['acp-no-such-agent-binary', '--x'], { steps: [...start] })).catch(
    (e) => e,
  );
  expect(err.message).toBe(
    'agent command not found: acp-no-such-agent-binary --x (check use.agentCommand in playwright.config.ts)',
  );
  expect((err as DriverError).kind).toBe('spawn');
});

test('a timeout kills the whole process group', async () => {
  // The budget covers the fake agent's start and initialize too, so it leaves room for a loaded machine.
  const err = await driveScenario(
    options(fakeAgent('hang'), { steps: [...start, { op: 'prompt', text: 'x' }], timeoutMs: 4000 }),
  ).catch((e) => e);
  expect(err.message).toBe(
    `driver-test: timed out after 4000 ms during step 3 (session/prompt "x"); the agent's process group was killed (raise "timeoutMs" in input.json if the scenario is legitimately slow)`,
  );
  expect((err as DriverError).kind).toBe('timeout');
  const text = (err as DriverError).result.stdout.map((l) => l.text).join('\n');
  const pid = Number(/grandchild (\d+)/.exec(text)?.[1]);
  expect(pid).toBeGreaterThan(0);
  await expect.poll(() => isAlive(pid)).toBe(false);
});

test('an agent that ignores stdin EOF is killed after the grace period and reported', async () => {
  const opts = { ...options(fakeAgent('stubborn'), { steps: [...start] }), exitGraceMs: 300 };
  const r = await driveScenario(opts);
  expect(r.problems).toEqual([
    'driver-test: agent process 1 did not exit within 300 ms after stdin closed; its process group was killed (an agent that never exits on stdin close needs `exit: "signal"` in its profile)',
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

const turns = fakeAgent('turns');
const cancelled = { expectStopReason: 'cancelled' } as const;

test('cancel afterSilenceMs: the timer restarts with each update, so the cancel comes only after the last one', async () => {
  // Seven chunks 250 ms apart take 1.5 s: a timer started at the first update and never reset would fire
  // before the last chunk. The fake agent reports how many it had sent and how long it then was quiet.
  const r = await driveScenario(
    options(turns, {
      steps: [
        ...start,
        {
          op: 'prompt',
          text: 'chunks=7 gapMs=250 then=wait',
          ...cancelled,
          cancel: { afterSilenceMs: 1200 },
        },
      ],
    }),
  );
  expect(r.problems).toEqual([]);
  expect(chunkTexts(r)).toHaveLength(7);
  const [result] = stopResults(r);
  expect(result).toMatchObject({ stopReason: 'cancelled', _meta: { sent: 7 } });
  expect(result._meta.quietMs).toBeGreaterThanOrEqual(1200);
});

test('cancel before the first update: sent right after the prompt, while the agent has said nothing', async () => {
  const r = await driveScenario(
    options(turns, {
      steps: [
        ...start,
        { op: 'prompt', text: 'then=wait', ...cancelled, cancel: { before: 'first_update' } },
      ],
    }),
  );
  expect(r.problems).toEqual([]);
  expect(messages(r).filter((m) => m.method === 'session/update')).toEqual([]);
  expect(stopResults(r)).toEqual([
    { stopReason: 'cancelled', _meta: { sent: 0, quietMs: expect.any(Number) } },
  ]);
});

test('a kill point SIGKILLs the agent: no response, restart without a graceful close, load, next prompt', async () => {
  const r = await driveScenario(
    options(turns, {
      steps: [
        ...start,
        { op: 'prompt', text: 'chunks=3 then=hang', kill: { afterUpdates: 3 } },
        { op: 'restart' },
        { op: 'initialize' },
        { op: 'load_session' },
        { op: 'prompt', text: 'chunks=1 then=end' },
      ],
    }),
  );
  expect(r.problems).toEqual([]);
  expect(r.exits).toEqual(['SIGKILL', 0]);
  expect(chunkTexts(r)).toEqual(['chunk 1', 'chunk 2', 'chunk 3', 'history replayed', 'chunk 1']);
  // The killed prompt (request id 2 of process 1) was never answered; the second process's prompt was.
  const first = r.stdout.filter((l) => l.process === 0).map((l) => JSON.parse(l.text));
  expect(first.filter((m) => 'result' in m).map((m) => m.id)).toEqual([0, 1]);
  expect(stopResults(r)).toEqual([{ stopReason: 'end_turn' }]);
});

test('a kill at a permission request leaves the question unanswered; a kill point never reached is a problem', async () => {
  const asked = await driveScenario(
    options(turns, {
      steps: [
        ...start,
        { op: 'prompt', text: 'then=ask', kill: { after: 'permission_request' } },
        { op: 'restart' },
        { op: 'initialize' },
        { op: 'load_session' },
      ],
    }),
  );
  expect(asked.problems).toEqual([]);
  expect(asked.exits).toEqual(['SIGKILL', 0]);
  const missed = await driveScenario(
    options(turns, {
      steps: [
        ...start,
        { op: 'prompt', text: 'chunks=1 then=end', kill: { afterUpdates: 5 } },
        { op: 'restart' },
        { op: 'initialize' },
        { op: 'load_session' },
      ],
    }),
  );
  expect(missed.problems).toEqual([
    'step 3 (session/prompt "chunks=1 then=end" (kill {"afterUpdates":5})): the kill point (after 5 update(s)) was never reached: the prompt ended with stop reason "end_turn" first',
  ]);
  expect(missed.exits).toEqual([0, 0]);
});

test('a process a cancelled turn started and left running is a problem; one it ended is not', async () => {
  const steps = (text: string) => [
    ...start,
    { op: 'prompt' as const, text, ...cancelled, cancel: { afterUpdates: 1 } },
  ];
  const left = await driveScenario(options(turns, { steps: steps('child chunks=1 then=wait') }));
  expect(left.problems).toHaveLength(1);
  expect(left.problems[0]).toMatch(
    /^step 3 \(session\/prompt "child chunks=1 then=wait" \(cancel \{"afterUpdates":1\}\)\): 1 process\(es\) the cancelled turn started were still running 2000 ms after its response \(a cancel must stop the turn's tools\):\n {2}pid \d+: sleep 300$/,
  );
  // Still there after the agent exited; the harness's end-of-run reaping kills it.
  expect((await reapOrphans(roots.root)).map((p) => p.command)).toEqual(['sleep 300']);
  const ended = await driveScenario(options(turns, { steps: steps('child chunks=1 then=wait killChild') }));
  expect(ended.problems).toEqual([]);
  expect(await reapOrphans(roots.root)).toEqual([]);
});

test('content blocks (an image the agent declared among them) are sent as written, root placeholders replaced', async () => {
  const content: PromptBlock[] = [
    { type: 'text', text: 'Summarize these:' },
    { type: 'resource_link', uri: 'file://{{cwd}}/notes.txt', name: 'notes.txt', mimeType: 'text/plain' },
    { type: 'resource', resource: { uri: 'file://{{cwd}}/a.md', text: '# A\n', mimeType: 'text/markdown' } },
    { type: 'resource', resource: { uri: 'file://{{home}}/b.bin', blob: 'AAEC' } },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  ];
  const r = await driveScenario(options(fakeAgent('echo'), { steps: [...start, { op: 'prompt', content }] }));
  expect(r.problems).toEqual([]);
  expect(JSON.parse(chunkTexts(r)[0]!)).toEqual([
    content[0],
    { ...content[1], uri: `file://${roots.cwd}/notes.txt` },
    {
      type: 'resource',
      resource: { uri: `file://${roots.cwd}/a.md`, text: '# A\n', mimeType: 'text/markdown' },
    },
    { type: 'resource', resource: { uri: `file://${roots.home}/b.bin`, blob: 'AAEC' } },
    content[4],
  ]);
});

test('a block the agent did not declare is refused before it is sent, naming the block and the capability', async () => {
  const audio: PromptBlock = { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' };
  const err = await driveScenario(
    options(fakeAgent('echo'), {
      steps: [...start, { op: 'prompt', content: [{ type: 'text', text: 'listen' }, audio] }],
    }),
  ).catch((e) => e);
  expect(err).toBeInstanceOf(DriverError);
  expect(err.message).toBe(
    `driver-test: step 3 (session/prompt [text, audio]): input.json's prompt content[1] (type "audio") needs promptCapabilities.audio, which the agent's initialize result does not declare (ACP: a client sends only the prompt content an agent declares); remove the block, or run an agent that declares it`,
  );
  // Nothing of the prompt reached the agent.
  expect(messages(err.result).filter((m) => m.method === 'session/update')).toEqual([]);
});
