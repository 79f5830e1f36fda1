/**
 * The failure catalog's full-harness layer: every catalog case whose layers include 'harness' is
 * provoked in a throwaway copy of a committed scenario and run through the real harness path
 * (runCorpusScenario, then the checks replay.spec.ts makes), and the user-visible outcome is
 * asserted: the readable message, that it came well within the scenario's budget (no hang), the
 * attached raw stdout / stderr / log, and that nothing the client was told is missing from the log.
 */

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseReplayReport, type ReplayDrift } from '@acp-snapshot/core';
import { failureCase, PROVIDER_FAILURES, untestedCases } from '@acp-snapshot/core/testing';
import {
  attachFailureArtifacts,
  DriverError,
  driverFailureArtifacts,
  expect,
  processesInside,
  REPO_ROOT,
  type RunDirs,
  replayVerdict,
  runCorpusScenario,
  type ScenarioPaths,
  type StepRunner,
} from '@acp-snapshot/playwright/testing';
import type { TestInfo } from '@playwright/test';
import { unloggedAnnouncements } from './acknowledged.js';
import { killAgentWhenToolRuns } from './kill.js';
import {
  expectLoggedTurnEnd,
  expectReportedFailure,
  type HarnessRun,
  OUTCOME_WITHIN_MS,
  promptResponse,
} from './outcome.js';
import { onPrompt, test } from './scratch.js';

/**
 * Runs a scenario the way the replay project does and returns the failure a user would read, with
 * the artifacts attached to `testInfo` exactly as a failing replay test attaches them.
 */
async function runThroughHarness(
  testInfo: TestInfo,
  dirs: RunDirs,
  paths: ScenarioPaths,
  agentCommand: readonly string[],
  step?: StepRunner,
): Promise<HarnessRun> {
  const started = Date.now();
  const expectedLog = await readFile(paths.session, 'utf8');
  try {
    const o = await runCorpusScenario({
      paths,
      mode: 'replay',
      dirs,
      agentCommand,
      ...(step ? { step } : {}),
    });
    const ms = Date.now() - started;
    // The run's own findings; the surfaces are not compared: each case checks what it must observe.
    const { findings } = replayVerdict(
      paths,
      o,
      { log: expectedLog, stdout: o.stdoutText, workspace: o.workspaceText },
      REPO_ROOT,
    );
    const problems = findings.filter((f) => f.kind !== 'log').map((f) => f.message);
    if (problems.length > 0) {
      await attachFailureArtifacts(testInfo, {
        result: o.result,
        expectedLog,
        actualLog: o.projected.text,
        rawLog: o.rawLog,
      });
    }
    const cause = findings.find((f) => f.cause)?.cause;
    return {
      message: problems.join('\n'),
      ms,
      result: o.result,
      rawLog: o.rawLog,
      ...(cause ? { cause } : {}),
    };
  } catch (e) {
    if (!(e instanceof DriverError)) throw e;
    const ms = Date.now() - started;
    await attachFailureArtifacts(testInfo, driverFailureArtifacts(e));
    return { message: e.message, ms, result: e.result, rawLog: e.rawLog ?? '' };
  }
}

/** The drift the replay plugin reported as data on the agent's stderr (its report line), if any. */
function replayReportDrift(run: HarnessRun): ReplayDrift | undefined {
  const lines = run.result.stderr.flatMap((t) => t.split('\n'));
  return lines.map((l) => parseReplayReport(l)?.drift).find((d) => d !== undefined);
}

const agentMissing = ['/nonexistent/acp-agent-cmd', '--stdio'];
const noisyAgent = [
  process.execPath,
  join(import.meta.dirname, '..', '..', 'playwright', 'src', 'testing', 'agents', 'fake-agent.mjs'),
  'noisy',
];
const orphanAgent = [
  process.execPath,
  join(import.meta.dirname, '..', '..', 'playwright', 'src', 'testing', 'agents', 'fake-agent.mjs'),
  'orphan',
];
/** Catalog cases with their harness test below; a harness case missing here fails the first test. */
const covered = new Set([
  'agent-command-not-found',
  ...PROVIDER_FAILURES,
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
  expect(untestedCases('harness', covered)).toEqual([]);
});

test('agent-command-not-found: names the command at once, no timeout', async ({
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('agent-command-not-found');
  const paths = await scratch({ from: 'hello', name: 'failure-agent-command-not-found' });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentMissing);
  expect(run.message).toBe(
    'agent command not found: /nonexistent/acp-agent-cmd --stdio (check use.agentCommand in playwright.config.ts)',
  );
  expect(run.result.stdout).toEqual([]);
  await expectReportedFailure(testInfo, run, c);
});

for (const id of PROVIDER_FAILURES) {
  test(`${id}: the prompt fails with the agent's documented JSON-RPC error`, async ({
    agentCommand,
    scratch,
    runDirs,
  }, testInfo) => {
    const c = failureCase(id);
    const name = `failure-${id}`;
    const paths = await scratch({ from: 'hello', name, override: c.override });
    const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
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
  runDirs,
}, testInfo) => {
  const c = failureCase('malformed-tool-args');
  const paths = await scratch({ from: 'hello', name: 'failure-malformed-tool-args', override: c.override });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message, 'the documented behaviour is not a test failure').toBe('');
  expect(run.result.stdout.map((l) => l.text).join('\n')).toMatch(c.expect.message);
  expect(promptResponse(run).result?.stopReason).toBe(c.expect.stopReason);
  expect(unloggedAnnouncements(run.result.stdout, run.rawLog)).toEqual([]);
  expectLoggedTurnEnd(run.rawLog, c);
});

test('hang-then-cancel: the cancel ends the hung turn "cancelled" at once', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('hang-then-cancel');
  const paths = await scratch({
    from: 'hello',
    name: 'failure-hang-then-cancel',
    override: c.override,
    input: (i) =>
      onPrompt(i, () => ({ cancel: { after: 'first_message_chunk' }, expectStopReason: 'cancelled' })),
  });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message).toBe('');
  expect(run.ms).toBeLessThan(OUTCOME_WITHIN_MS);
  const response = promptResponse(run);
  expect(response.result?.stopReason).toBe(c.expect.stopReason);
  expect(JSON.stringify(response)).toMatch(c.expect.message);
  expect(unloggedAnnouncements(run.result.stdout, run.rawLog)).toEqual([]);
  expectLoggedTurnEnd(run.rawLog, c);
});

test('killed-mid-turn: SIGKILL while bash runs fails naming the signal, and no orphan process remains', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('killed-mid-turn');
  const name = 'failure-killed-mid-turn';
  const paths = await scratch({
    from: 'hello',
    name,
    override: c.override,
    input: (i) => ({ ...onPrompt(i, () => ({ text: c.prompt })), permissions: ['allow'] }),
  });
  // The prompt step runs as usual; meanwhile, once the tool's `sleep` runs, the agent gets SIGKILL.
  const killer = killAgentWhenToolRuns(runDirs, 'sleep 300', OUTCOME_WITHIN_MS);
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand, killer.step);
  const root = killer.root;
  expect(killer.killed).toBeDefined();
  // The replay plugin reported the call it was serving before the kill (it reports as it serves).
  expect(run.message).toBe(
    `agent process 1 exited (SIGKILL) before the scenario finished; its stderr ends with:\n  acp-snapshot-agent: session sess-1 created in ${root}/work\n  llm-replay: {"scenario":"${name}","consumed":[1],"total":1}`,
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
  runDirs,
}, testInfo) => {
  const name = 'failure-orphan-left-behind';
  const paths = await scratch({ from: 'hello', name });
  let root: string | undefined;
  const step: StepRunner = async (_title, body) => {
    root ??= runDirs.latest?.root;
    return body();
  };
  const run = await runThroughHarness(testInfo, runDirs, paths, orphanAgent, step);
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
  runDirs,
}, testInfo) => {
  const c = failureCase('non-json-stdout');
  const paths = await scratch({ from: 'hello', name: 'failure-non-json-stdout' });
  const run = await runThroughHarness(testInfo, runDirs, paths, noisyAgent);
  expect(run.message).toBe(
    'agent wrote a non-JSON line to stdout (process 1, stdout line 1): "debug: initialized"\nstdout must carry ACP messages only; log to stderr.',
  );
  expect(run.result.stdout[0]?.text).toBe('debug: initialized');
  await expectReportedFailure(testInfo, run, c);
});

test('malformed-fixture-line: fails at start-up naming session.jsonl:LINE and the fix', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('malformed-fixture-line');
  const paths = await scratch({
    from: 'hello',
    name: 'failure-malformed-fixture-line',
    // Line 5 is the packed row of the model's answer; cut it mid-string.
    session: (lines) => lines.map((l, i) => (i === 4 ? l.slice(0, 30) : l)),
  });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message).toContain(`${paths.session}:5: bad row`);
  expect(run.message).toContain('fix or remove that line');
  expect(run.message).toMatch(/^agent process 1 exited \(1\) before the scenario finished/);
  await expectReportedFailure(testInfo, run, c);
});

const recordHint = (name: string) => `npm run record -- ${name}`;
const refreshHint = (name: string) => `npm run refresh -- ${name}`;

test('fixture-exhausted (override): names the scenario, the call index and the re-record command', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('fixture-exhausted');
  const name = 'failure-fixture-exhausted';
  const paths = await scratch({ from: 'hello', name, override: c.override });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message).toContain(
    `${name}: replay could not serve the agent's model calls from the recording:\nReplayExhaustedError: scenario "${name}": the agent made model call 2 (turn 1 step 2) but ${paths.override} holds only 1 recorded model call.`,
  );
  expect(run.message).toContain(recordHint(name));
  await expectReportedFailure(testInfo, run, c);
});

test('fixture-exhausted (one more prompt than recorded): names session.jsonl and call 2', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('fixture-exhausted');
  const name = 'failure-fixture-exhausted-prompt';
  const paths = await scratch({
    from: 'hello',
    name,
    input: (i) => ({ ...i, steps: [...i.steps, { op: 'prompt', text: 'And once more.' }] }),
  });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message).toContain(
    `ReplayExhaustedError: scenario "${name}": the agent made model call 2 (turn 2 step 1) but ${paths.session} holds only 1 recorded model call.`,
  );
  expect(run.message).toContain(recordHint(name));
  await expectReportedFailure(testInfo, run, c);
});

test('fixture-unused (override): the unused call is named with the refresh command', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('fixture-unused');
  const name = 'failure-fixture-unused';
  const paths = await scratch({ from: 'hello', name, override: c.override });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message).toBe(
    `${name}: 1 of 2 recorded model call(s) were never requested (unused calls: 2, numbered from 1). The agent now makes fewer model calls than the recording; if that is intended, run \`${refreshHint(name)}\`.`,
  );
  expect(promptResponse(run).result?.stopReason).toBe(c.expect.stopReason);
  await expectReportedFailure(testInfo, run, c);
});

test('fixture-unused (a recorded prompt dropped from input.json): names call 2 of 2', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('fixture-unused');
  const name = 'failure-fixture-unused-prompt';
  const paths = await scratch({
    from: 'multi-turn',
    name,
    input: (i) => ({ ...i, steps: i.steps.slice(0, -1) }),
  });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message).toContain(
    `${name}: 1 of 2 recorded model call(s) were never requested (unused calls: 2`,
  );
  expect(run.message).toContain(refreshHint(name));
  await expectReportedFailure(testInfo, run, c);
});

test('request-drift (a changed prompt): names the call, the first differing part and the refresh command', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('request-drift');
  const name = 'failure-request-drift';
  const paths = await scratch({
    from: 'hello',
    name,
    input: (i) => onPrompt(i, () => ({ text: 'Say hi in one short sentence.' })),
  });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message).toContain(
    `${name}: replay could not serve the agent's model calls from the recording:\nReplayDriftError: scenario "${name}": model call 1 of 1 (turn 1 step 1) sends a different request than the recording (event 4 of ${paths.session}): first differing part messages[0].content\n` +
      '  messages[0].content (user message):\n' +
      '    recorded (32 chars): "Say hello in one short sentence."\n' +
      '    live     (29 chars): "Say hi in one short sentence."\n' +
      '    (first difference at character 5)\n' +
      `If the change was intended, run \`${refreshHint(name)}\` to re-derive the recording from the current code.`,
  );
  // The drift as data in the replay report on stderr, and the cause the run's summary keys by, read from it.
  expect(replayReportDrift(run)).toEqual({
    part: 'messages[0]',
    path: 'messages[0].content',
    recorded: 'Say hello in one short sentence.',
    live: 'Say hi in one short sentence.',
  });
  expect(run.cause).toEqual({
    kind: 'request',
    key: 'request messages[0].content\n-hello +hi',
    detail: "the model request's messages[0].content changed: Say [-hello-]{+hi+} in one short sentence.",
  });
  await expectReportedFailure(testInfo, run, c);
});

test('request-drift (a changed tool result): the tool message that changed, as data, in the cause and the message', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const name = 'failure-request-drift-tool-result';
  const paths = await scratch({ from: 'read-file', name });
  // The file the model reads says another port: the tool result the agent sends next is not the recorded one.
  const seeded = join(paths.dir, 'workspace', 'config.toml');
  await writeFile(seeded, (await readFile(seeded, 'utf8')).replace('port = 8433', 'port = 9090'));
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  const drift = replayReportDrift(run);
  expect(drift).toMatchObject({ part: 'messages[2]', path: 'messages[2].content' });
  expect(drift?.recorded).toContain('port = 8433');
  expect(drift?.live).toContain('port = 9090');
  expect(run.message).toContain(
    `ReplayDriftError: scenario "${name}": model call 2 of 2 (turn 1 step 2) sends a different request than the recording`,
  );
  expect(run.message).toContain(
    'first differing part messages[2].content\n  messages[2].content (tool message):\n',
  );
  expect(run.message).toContain(refreshHint(name));
  expect(run.cause).toMatchObject({
    kind: 'request',
    detail: expect.stringContaining("the model request's messages[2].content changed: "),
  });
  expect(run.cause?.detail).toContain('port = [-8433-]{+9090+}');
});

test('request-drift (override fingerprint): the drift names the call and the refresh command', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('request-drift');
  const name = 'failure-request-drift-override';
  const paths = await scratch({ from: 'hello', name, override: c.override });
  const run = await runThroughHarness(testInfo, runDirs, paths, agentCommand);
  expect(run.message).toContain(
    `ReplayDriftError: scenario "${name}": model call 1 of 1 (turn 1 step 1) sends a different request than the recording (calls[0] of ${paths.override}): first differing part request\n` +
      '  expected request hash 0000000000000000, live ',
  );
  expect(run.message).toContain(refreshHint(name));
  await expectReportedFailure(testInfo, run, c);
});
