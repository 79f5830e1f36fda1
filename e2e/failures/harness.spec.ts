/**
 * The failure catalog's full-harness layer: every catalog case whose layers include 'harness' is
 * provoked in a throwaway copy of a committed scenario and run through the real harness path
 * (runFixtureScenario, then the checks replay.spec.ts makes), and the user-visible outcome is
 * asserted: the readable message, that it came well within the scenario's budget (no hang), the
 * attached raw stdout / stderr / log, and that nothing the client was told is missing from the log.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseLogText } from '@acp-snapshot/session-log';
import type { TestInfo } from '@playwright/test';
import {
  attachFailureArtifacts,
  driverFailureArtifacts,
  replayFailureMessage,
  replayFailures,
  unionReplayReports,
  unusedCallsProblem,
} from '../compare.js';
import { DriverError, type DriverResult, type StepRunner } from '../driver.js';
import { test as base, expect } from '../fixtures.js';
import { recordedModelCalls } from '../harvest.js';
import { processesInside } from '../orphans.js';
import { scenarioKey } from '../roots.js';
import { runFixtureScenario } from '../run.js';
import type { ScenarioInput } from '../scenario.js';
import type { ScenarioPaths } from '../scenarios.js';
import { unloggedAnnouncements } from './acknowledged.js';
import { type FailureCase, failureCase, failureCasesFor } from './catalog.js';
import { type ScratchSpec, scratchScenario } from './scratch.js';

/** Each throwaway scenario's whole budget (input.json timeoutMs): the driver kills the agent after it. */
const SCENARIO_TIMEOUT_MS = 15_000;
/** Every case must end in its outcome well before that budget: a failure that waits for the timeout is a hang. */
const OUTCOME_WITHIN_MS = 8_000;

/** What a user sees of one run through the harness. */
interface HarnessRun {
  /** The failure message of the test (the DriverError, or the replay checks' problems); '' when it passed. */
  message: string;
  /** Wall time of the run, ms. */
  ms: number;
  result: DriverResult;
  /** The agent's persisted log as harvested (raw rows), '' when it persisted none. */
  rawLog: string;
}

/**
 * Runs a scenario the way the replay project does and returns the failure a user would read, with
 * the artifacts attached to `testInfo` exactly as a failing replay test attaches them.
 */
async function runThroughHarness(
  testInfo: TestInfo,
  paths: ScenarioPaths,
  agentCommand: readonly string[],
  step?: StepRunner,
): Promise<HarnessRun> {
  const started = Date.now();
  const expectedLog = await readFile(paths.session, 'utf8');
  try {
    const o = await runFixtureScenario({ paths, mode: 'replay', agentCommand, ...(step ? { step } : {}) });
    const ms = Date.now() - started;
    const failures = replayFailures(o.result.stderr, o.records);
    const unused = unusedCallsProblem(
      paths.name,
      unionReplayReports(o.result.stderr),
      recordedModelCalls(expectedLog, paths.session),
    );
    const problems = [
      ...(failures.length > 0 ? [replayFailureMessage(paths.name, failures)] : []),
      ...o.result.problems,
      ...(unused ? [unused] : []),
    ];
    if (problems.length > 0) {
      await attachFailureArtifacts(testInfo, {
        result: o.result,
        expectedLog,
        actualLog: o.projected.text,
        rawLog: o.rawLog,
      });
    }
    return { message: problems.join('\n'), ms, result: o.result, rawLog: o.rawLog };
  } catch (e) {
    if (!(e instanceof DriverError)) throw e;
    const ms = Date.now() - started;
    await attachFailureArtifacts(testInfo, driverFailureArtifacts(e));
    return { message: e.message, ms, result: e.result, rawLog: e.rawLog ?? '' };
  }
}

/** A throwaway scenario for a case: its budget is short, and it is removed after the test. */
const test = base.extend<{ scratch: (spec: ScratchSpec) => Promise<ScenarioPaths> }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  scratch: async ({}, use, testInfo) => {
    const made: Array<() => Promise<void>> = [];
    await use(async (spec) => {
      const s = await scratchScenario({
        ...spec,
        input: (i) => ({ ...(spec.input ? spec.input(i) : i), timeoutMs: SCENARIO_TIMEOUT_MS }),
      });
      made.push(s.dispose);
      await testInfo.attach('scenario', { body: s.paths.dir, contentType: 'text/plain' });
      return s.paths;
    });
    await Promise.all(made.map((dispose) => dispose()));
  },
});

const onPrompt = (
  input: ScenarioInput,
  edit: (s: Extract<ScenarioInput['steps'][number], { op: 'prompt' }>) => object,
) => ({
  ...input,
  steps: input.steps.map((s) => (s.op === 'prompt' ? { ...s, ...edit(s) } : s)),
});

/** The outcome every failing case shares: its message, in time, artifacts attached, nothing lost from the log. */
async function expectReportedFailure(testInfo: TestInfo, run: HarnessRun, c: FailureCase): Promise<void> {
  expect(run.message, 'the readable failure').toMatch(c.expect.message);
  expect(run.ms, 'the failure comes well before the scenario timeout (no hang)').toBeLessThan(
    OUTCOME_WITHIN_MS,
  );
  expect(run.message).not.toMatch(/timed out after/);
  const attached = (name: string) => {
    const a = testInfo.attachments.find((x) => x.name === name);
    expect(a, `attachment ${name}`).toBeDefined();
    return a?.body?.toString('utf8') ?? '';
  };
  expect(attached('stdout.raw.jsonl'), 'the partial transcript, exactly as written').toBe(
    run.result.stdout.map((l) => l.text).join('\n'),
  );
  const stderr = attached('stderr.txt');
  for (const text of run.result.stderr) expect(stderr).toContain(text);
  if (run.rawLog !== '') {
    expect(attached('session.raw.jsonl')).toBe(run.rawLog);
    expect(unloggedAnnouncements(run.result.stdout, run.rawLog), 'nothing lost from the log').toEqual([]);
  }
  expectLoggedTurnEnd(run, c);
}

/** The log ends the failed turn the documented way (turn/end kind, and the provider's error code). */
function expectLoggedTurnEnd(run: HarnessRun, c: FailureCase): void {
  if (!c.expect.turnEnd) return;
  const events = parseLogText(run.rawLog, 'harvested log').records.map((r) => r.event);
  const end = events.findLast((e) => e.type === 'turn/end');
  expect(end, 'the failed turn is closed in the log').toMatchObject({ kind: c.expect.turnEnd });
  if (c.expect.turnEnd === 'error' && c.expect.llmErrorCode && end?.type === 'turn/end') {
    expect(`${end.error?.code}: ${end.error?.message}`).toContain(c.expect.llmErrorCode);
  }
}

/** The prompt's JSON-RPC response on stdout (its last one). */
function promptResponse(run: HarnessRun): {
  result?: { stopReason?: string };
  error?: { code: number; data?: { code?: string } };
} {
  const responses = run.result.stdout
    .map(
      (l) =>
        JSON.parse(l.text) as { id?: unknown; result?: { stopReason?: string }; error?: { code: number } },
    )
    .filter((m) => m.id !== undefined && (m.result?.stopReason !== undefined || m.error !== undefined));
  return responses.at(-1) ?? {};
}

const agentMissing = ['/nonexistent/acp-agent-cmd', '--stdio'];
const noisyAgent = [
  process.execPath,
  join(import.meta.dirname, '..', 'test-agents', 'fake-agent.mjs'),
  'noisy',
];
const orphanAgent = [
  process.execPath,
  join(import.meta.dirname, '..', 'test-agents', 'fake-agent.mjs'),
  'orphan',
];
const providerCases = [
  'provider-401',
  'provider-402',
  'provider-429',
  'provider-5xx',
  'stream-cut',
  'malformed-chunk',
];
/** Catalog cases with their harness test below; a harness case missing here fails the first test. */
const covered = new Set([
  'agent-command-not-found',
  ...providerCases,
  'malformed-tool-args',
  'hang-then-cancel',
  'killed-mid-turn',
  'non-json-stdout',
  'malformed-fixture-line',
  'fixture-exhausted',
  'fixture-unused',
  'request-drift',
]);

test('every harness-layer case of the catalog has a harness test', () => {
  expect(
    failureCasesFor('harness')
      .map((c) => c.id)
      .filter((id) => !covered.has(id)),
  ).toEqual([]);
});

test('agent-command-not-found: names the command at once, no timeout', async ({ scratch }, testInfo) => {
  const c = failureCase('agent-command-not-found');
  const paths = await scratch({ from: 'hello', name: 'failure-agent-command-not-found' });
  const run = await runThroughHarness(testInfo, paths, agentMissing);
  expect(run.message).toBe(
    'agent command not found: /nonexistent/acp-agent-cmd --stdio (check use.agentCommand in playwright.config.ts)',
  );
  expect(run.result.stdout).toEqual([]);
  await expectReportedFailure(testInfo, run, c);
});

for (const id of providerCases) {
  test(`${id}: the prompt fails with the agent's documented JSON-RPC error`, async ({
    agentCommand,
    scratch,
  }, testInfo) => {
    const c = failureCase(id);
    const name = `failure-${id}`;
    const paths = await scratch({ from: 'hello', name, override: c.override });
    const run = await runThroughHarness(testInfo, paths, agentCommand);
    expect(run.message).toContain(
      `step 3 (session/prompt "Say hello in one short sentence."): the agent answered with JSON-RPC error ${c.expect.rpcErrorCode}: model provider error (${c.expect.llmErrorCode}`,
    );
    const response = promptResponse(run);
    expect(response.error?.code).toBe(c.expect.rpcErrorCode);
    expect(response.error?.data?.code).toBe(c.expect.llmErrorCode);
    await expectReportedFailure(testInfo, run, c);
  });
}

test('malformed-tool-args: a failed tool result, the model goes on, the turn ends end_turn', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('malformed-tool-args');
  const paths = await scratch({ from: 'hello', name: 'failure-malformed-tool-args', override: c.override });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message, 'the documented behaviour is not a test failure').toBe('');
  expect(run.result.stdout.map((l) => l.text).join('\n')).toMatch(c.expect.message);
  expect(promptResponse(run).result?.stopReason).toBe(c.expect.stopReason);
  expect(unloggedAnnouncements(run.result.stdout, run.rawLog)).toEqual([]);
  expectLoggedTurnEnd(run, c);
});

test('hang-then-cancel: the cancel ends the hung turn "cancelled" at once', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('hang-then-cancel');
  const paths = await scratch({
    from: 'hello',
    name: 'failure-hang-then-cancel',
    override: c.override,
    input: (i) =>
      onPrompt(i, () => ({ cancel: { after: 'first_message_chunk' }, expectStopReason: 'cancelled' })),
  });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message).toBe('');
  expect(run.ms).toBeLessThan(OUTCOME_WITHIN_MS);
  const response = promptResponse(run);
  expect(response.result?.stopReason).toBe(c.expect.stopReason);
  expect(JSON.stringify(response)).toMatch(c.expect.message);
  expect(unloggedAnnouncements(run.result.stdout, run.rawLog)).toEqual([]);
  expectLoggedTurnEnd(run, c);
});

/** The generated root of a scenario's current run (`/tmp/acp-snap-<key>-XXXXXX`), once it exists. */
async function runRoot(name: string): Promise<string | undefined> {
  const prefix = `acp-snap-${scenarioKey(name)}-`;
  const found = (await readdir('/tmp')).filter((e) => e.startsWith(prefix));
  return found.length === 1 ? join('/tmp', found[0]!) : undefined;
}

test('killed-mid-turn: SIGKILL while bash runs fails naming the signal, and no orphan process remains', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('killed-mid-turn');
  const name = 'failure-killed-mid-turn';
  const paths = await scratch({
    from: 'hello',
    name,
    override: c.override,
    input: (i) => ({ ...onPrompt(i, () => ({ text: c.prompt })), permissions: ['allow'] }),
  });
  let root: string | undefined;
  let killed: { pid: number; command: string } | undefined;
  // The prompt step runs as usual; meanwhile, once the tool's `sleep` runs, the agent gets SIGKILL.
  const step: StepRunner = async (title, body) => {
    if (!title.startsWith('session/prompt')) return body();
    const running = body();
    running.catch(() => {});
    await expect
      .poll(
        async () => {
          root ??= await runRoot(name);
          return root ? (await processesInside(root)).some((p) => p.command === 'sleep 300') : false;
        },
        { message: "the bash tool's `sleep 300` starts", timeout: OUTCOME_WITHIN_MS },
      )
      .toBe(true);
    const agent = (await processesInside(root!)).find((p) => p.command.includes('agent/dist/main.js'));
    expect(agent, 'the agent process runs in its session cwd').toBeDefined();
    killed = agent;
    process.kill(agent!.pid, 'SIGKILL');
    return running;
  };
  const run = await runThroughHarness(testInfo, paths, agentCommand, step);
  expect(killed).toBeDefined();
  expect(run.message).toBe(
    `agent process 1 exited (SIGKILL) before the scenario finished; its stderr ends with:\n  acp-snapshot-agent: session sess-1 created in ${root}/work`,
  );
  // The bash tool's process group ends with the agent (the agent's watchdog), so the harness found
  // no orphan to reap and report.
  expect(run.message).not.toContain('orphan processes');
  expect(await processesInside(root!), 'no process is left in the test roots').toEqual([]);
  expect(run.result.exits).toEqual(['SIGKILL']);
  // The tool call the client was told about is in the log, up to the kill.
  expect(run.rawLog).toContain('"type":"tool/call"');
  await expectReportedFailure(testInfo, run, c);
});

test('killed-mid-turn (an agent that leaves a child behind): the harness reaps it and names it', async ({
  scratch,
}, testInfo) => {
  const name = 'failure-orphan-left-behind';
  const paths = await scratch({ from: 'hello', name });
  let root: string | undefined;
  const step: StepRunner = async (_title, body) => {
    root ??= await runRoot(name);
    return body();
  };
  const run = await runThroughHarness(testInfo, paths, orphanAgent, step);
  expect(run.message).toMatch(
    /^agent process 1 exited \(3\) before the scenario finished; its stderr ends with:\n {2}fatal: left a child behind\norphan processes: 1 process\(es\) were still running inside the test's directories after the agent exited \(the harness killed them\):\n {2}pid \d+: sleep 300 \(cwd \/tmp\/acp-snap-\w+-\w+\/work\)$/,
  );
  expect(root).toBeDefined();
  expect(await processesInside(root!), 'the orphan was killed').toEqual([]);
  await expectReportedFailure(testInfo, run, {
    ...failureCase('killed-mid-turn'),
    expect: { message: /orphan processes/ },
  });
});

test('non-json-stdout: fails naming the process, the stdout line and its text', async ({
  scratch,
}, testInfo) => {
  const c = failureCase('non-json-stdout');
  const paths = await scratch({ from: 'hello', name: 'failure-non-json-stdout' });
  const run = await runThroughHarness(testInfo, paths, noisyAgent);
  expect(run.message).toBe(
    'agent wrote a non-JSON line to stdout (process 1, stdout line 1): "debug: initialized"\nstdout must carry ACP messages only; log to stderr.',
  );
  expect(run.result.stdout[0]?.text).toBe('debug: initialized');
  await expectReportedFailure(testInfo, run, c);
});

test('malformed-fixture-line: fails at start-up naming session.jsonl:LINE and the fix', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('malformed-fixture-line');
  const paths = await scratch({
    from: 'hello',
    name: 'failure-malformed-fixture-line',
    // Line 5 is the packed row of the model's answer; cut it mid-string.
    session: (lines) => lines.map((l, i) => (i === 4 ? l.slice(0, 30) : l)),
  });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message).toContain(`${paths.session}:5: bad row`);
  expect(run.message).toContain('fix or remove that line');
  expect(run.message).toMatch(/^agent process 1 exited \(1\) before the scenario finished/);
  await expectReportedFailure(testInfo, run, c);
});

const recordHint = (name: string) => `npx playwright test --project=record -g ${name}`;
const refreshHint = (name: string) => `npx playwright test --project=refresh -g ${name}`;

test('fixture-exhausted (override): names the scenario, the call index and the re-record command', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('fixture-exhausted');
  const name = 'failure-fixture-exhausted';
  const paths = await scratch({ from: 'hello', name, override: c.override });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message).toContain(
    `${name}: replay could not serve the agent's model calls from the recording:\nReplayExhaustedError: scenario "${name}": the agent made model call 2 (turn 1 step 2) but ${paths.override} holds only 1 recorded model call.`,
  );
  expect(run.message).toContain(recordHint(name));
  await expectReportedFailure(testInfo, run, c);
});

test('fixture-exhausted (one more prompt than recorded): names session.jsonl and call 2', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('fixture-exhausted');
  const name = 'failure-fixture-exhausted-prompt';
  const paths = await scratch({
    from: 'hello',
    name,
    input: (i) => ({ ...i, steps: [...i.steps, { op: 'prompt', text: 'And once more.' }] }),
  });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message).toContain(
    `ReplayExhaustedError: scenario "${name}": the agent made model call 2 (turn 2 step 1) but ${paths.session} holds only 1 recorded model call.`,
  );
  expect(run.message).toContain(recordHint(name));
  await expectReportedFailure(testInfo, run, c);
});

test('fixture-unused (override): the unused call is named with the refresh command', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('fixture-unused');
  const name = 'failure-fixture-unused';
  const paths = await scratch({ from: 'hello', name, override: c.override });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message).toBe(
    `${name}: 1 of 2 recorded model call(s) were never requested (unused calls: 2, numbered from 1). The agent now makes fewer model calls than the recording; if that is intended, run \`${refreshHint(name)}\`.`,
  );
  expect(promptResponse(run).result?.stopReason).toBe(c.expect.stopReason);
  await expectReportedFailure(testInfo, run, c);
});

test('fixture-unused (a recorded prompt dropped from input.json): names call 2 of 2', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('fixture-unused');
  const name = 'failure-fixture-unused-prompt';
  const paths = await scratch({
    from: 'multi-turn',
    name,
    input: (i) => ({ ...i, steps: i.steps.slice(0, -1) }),
  });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message).toContain(
    `${name}: 1 of 2 recorded model call(s) were never requested (unused calls: 2`,
  );
  expect(run.message).toContain(refreshHint(name));
  await expectReportedFailure(testInfo, run, c);
});

test('request-drift (a changed prompt): names the call, the first differing part and the refresh command', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('request-drift');
  const name = 'failure-request-drift';
  const paths = await scratch({
    from: 'hello',
    name,
    input: (i) => onPrompt(i, () => ({ text: 'Say hi in one short sentence.' })),
  });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message).toContain(
    `${name}: replay could not serve the agent's model calls from the recording:\nReplayDriftError: scenario "${name}": model call 1 of 1 (turn 1 step 1) sends a different request than the recording (event 4 of ${paths.session}): first differing part messages[0].content\n` +
      '  messages[0].content (user message):\n' +
      '    recorded (32 chars): "Say hello in one short sentence."\n' +
      '    live     (29 chars): "Say hi in one short sentence."\n' +
      '    (first difference at character 5)\n' +
      `If the change was intended, run \`${refreshHint(name)}\` to re-derive the recording from the current code.`,
  );
  await expectReportedFailure(testInfo, run, c);
});

test('request-drift (override fingerprint): the drift names the call and the refresh command', async ({
  agentCommand,
  scratch,
}, testInfo) => {
  const c = failureCase('request-drift');
  const name = 'failure-request-drift-override';
  const paths = await scratch({ from: 'hello', name, override: c.override });
  const run = await runThroughHarness(testInfo, paths, agentCommand);
  expect(run.message).toContain(
    `ReplayDriftError: scenario "${name}": model call 1 of 1 (turn 1 step 1) sends a different request than the recording (calls[0] of ${paths.override}): first differing part request\n` +
      '  expected request hash 0000000000000000, live ',
  );
  expect(run.message).toContain(refreshHint(name));
  await expectReportedFailure(testInfo, run, c);
});
