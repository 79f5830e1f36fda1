/**
 * The failure catalog's record-mode harness layer: every case whose layers include 'harness-record'
 * is recorded through the harness's record path (recordScenario, what `npm run record` runs) into a
 * throwaway copy of a committed scenario, against the model emulator serving the case's responses
 * as an OpenAI-compatible server (what `ACP_SNAPSHOT_BASE_URL=http://127.0.0.1:PORT npm run record`
 * talks to). A case that breaks the run must fail the recording with a readable message (the
 * scenario, the provider's error, what to do next), well before the scenario's timeout, with the
 * artifacts attached and secrets scrubbed, and must write nothing; a case whose documented outcome
 * is a normal run records that outcome. A scenario that expects the error (as
 * fixtures/scenarios/provider-401 does) still records it.
 */

import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { failureCase, PROVIDER_FAILURES, untestedCases } from '@acp-snapshot/core/testing';
import {
  expect,
  findingsText,
  fixturesDir,
  machineSecrets,
  REPO_ROOT,
  RecordingFailed,
  type RunDirs,
  readExpected,
  recordedModelCalls,
  recordScenario,
  recordTargetFor,
  replayVerdict,
  runCorpusScenario,
  type StepRunner,
  scenarioPaths,
  scrubSecrets,
} from '@acp-snapshot/playwright/testing';
import type { TestInfo } from '@playwright/test';
import { killAgentWhenToolRuns } from './kill.js';
import {
  expectLoggedTurnEnd,
  expectReportedFailure,
  type HarnessRun,
  OUTCOME_WITHIN_MS,
  promptResponse,
} from './outcome.js';
import { onPrompt, type ScratchPaths, test } from './scratch.js';

/** Our agent with its live composition (the record overlay), as the record project runs it. */
const RECORDING_AGENT = [
  process.execPath,
  join(REPO_ROOT, 'agent/dist/main.js'),
  '--overlay',
  join(REPO_ROOT, 'agent/overlays/record.json'),
];
/** The API key the recordings send: it must never reach an attachment. */
const API_KEY = 'sk-test-record-failures-0123456789';
const scrub = (text: string) => scrubSecrets(text, machineSecrets([API_KEY]));

/** What a user sees of one recording, and what it left in the fixtures directory. */
interface RecordRun extends HarnessRun {
  /** Every file under the scratch fixtures directory (relative path -> content), before and after. */
  before: Map<string, string>;
  after: Map<string, string>;
  /** Model requests the emulator received. */
  modelRequests: number;
}

/** The files under `dir`, relative path -> content. */
async function fixtureFiles(dir: string): Promise<Map<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return new Map(
    await Promise.all(files.sort().map(async (f) => [relative(dir, f), await readFile(f, 'utf8')] as const)),
  );
}

/**
 * Records a throwaway scenario the way `npm run record` does, against the emulator serving
 * `responses`, and returns what the user sees: the recorder's error ('' when it recorded) with the
 * artifacts it attached to `testInfo`.
 */
async function recordThroughHarness(
  testInfo: TestInfo,
  dirs: RunDirs,
  paths: ScratchPaths,
  responses: readonly unknown[],
  step?: StepRunner,
): Promise<RecordRun> {
  const { startEmulator } = await import('@acp-snapshot/emulator');
  const emulator = await startEmulator({ script: { responses } });
  try {
    const before = await fixtureFiles(paths.fixtures);
    const started = Date.now();
    const seen = await recordScenario({
      paths,
      fixtures: paths.fixtures,
      agentCommand: RECORDING_AGENT,
      target: { kind: 'server', baseUrl: emulator.url, apiKey: API_KEY },
      dirs,
      testInfo,
      ...(step ? { step } : {}),
    }).then(
      (r) => ({ message: '', result: r.outcome.result, rawLog: r.outcome.rawLog }),
      (e: unknown) => {
        if (!(e instanceof RecordingFailed)) throw e;
        return { message: e.message, result: e.result, rawLog: e.rawLog };
      },
    );
    const ms = Date.now() - started;
    return {
      ...seen,
      ms,
      before,
      after: await fixtureFiles(paths.fixtures),
      modelRequests: emulator.requests.length,
    };
  } finally {
    await emulator.close();
  }
}

/** A failed recording left the fixtures exactly as they were and leaked no secret into the report. */
function expectNothingWritten(testInfo: TestInfo, run: RecordRun): void {
  expect(run.message, 'the recording failed').not.toBe('');
  expect(run.after, 'the fixtures directory is byte-for-byte unchanged').toEqual(run.before);
  expectNoSecretAttached(testInfo);
}

/** The recording's API key is in no attachment (the recorder scrubs them before they reach the report). */
function expectNoSecretAttached(testInfo: TestInfo): void {
  for (const a of testInfo.attachments)
    expect(a.body?.toString('utf8') ?? '', `attachment ${a.name}`).not.toContain(API_KEY);
}

/** The end of every failed recording's message: nothing written, and what to do next. */
const nextSteps = (name: string, rpcError: boolean) =>
  `\nNothing was written: the scenario's fixtures are unchanged. Fix the cause and record again: npm run record -- ${name}.` +
  (rpcError
    ? ' If the scenario is meant to record that error, add "expectError" with a part of its message to the prompt step in input.json (as fixtures/scenarios/provider-401 does).'
    : '');

/** Catalog cases with their record-mode test below; a harness-record case missing here fails the first test. */
const covered = new Set([...PROVIDER_FAILURES, 'malformed-tool-args', 'hang-then-cancel', 'killed-mid-turn']);

test('every harness-record case of the catalog has a record-mode test', () => {
  expect(untestedCases('harness-record', covered)).toEqual([]);
});

for (const id of PROVIDER_FAILURES) {
  test(`${id}: the recording fails naming the scenario, the provider's error and what to do, and writes nothing`, async ({
    scratch,
    runDirs,
  }, testInfo) => {
    const c = failureCase(id);
    expect(c.expect.recording).toBe('fails');
    const name = `record-${id}`;
    const paths = await scratch({ from: 'hello', name });
    const run = await recordThroughHarness(testInfo, runDirs, paths, c.emulator!);
    expect(run.message).toContain(
      `${name}: not recorded, the run did not go as input.json says:\n  step 3 (session/prompt "Say hello in one short sentence."): the agent answered with JSON-RPC error ${c.expect.rpcErrorCode}: model provider error (${c.expect.llmErrorCode}`,
    );
    expect(run.message.endsWith(nextSteps(name, true)), run.message).toBe(true);
    // Every scripted response was asked for: the failure came from the provider (429 / 5xx after the retries).
    expect(run.modelRequests).toBe(c.emulator!.length);
    const response = promptResponse(run);
    expect(response.error?.code).toBe(c.expect.rpcErrorCode);
    expect(response.error?.data?.code).toBe(c.expect.llmErrorCode);
    await expectReportedFailure(testInfo, run, c, scrub);
    expectNothingWritten(testInfo, run);
  });
}

test('a provider error that echoes the API key: the message and every attachment carry it scrubbed', async ({
  scratch,
  runDirs,
}, testInfo) => {
  const name = 'record-provider-echoes-key';
  const paths = await scratch({ from: 'hello', name });
  const echoed = `Authentication Fails, the key ${API_KEY} is invalid`;
  const run = await recordThroughHarness(testInfo, runDirs, paths, [
    { fail: { kind: 'http', status: 401, message: echoed } },
  ]);
  expect(run.result.stdout.map((l) => l.text).join('\n'), 'the agent did pass the key on').toContain(API_KEY);
  expect(run.message).toContain('Authentication Fails, the key [redacted-key] is invalid');
  expect(run.message).not.toContain(API_KEY);
  expectNothingWritten(testInfo, run);
  expect(testInfo.attachments.find((a) => a.name === 'stdout.raw.jsonl')?.body?.toString()).toContain(
    '[redacted-key]',
  );
});

test('killed-mid-turn: SIGKILL while bash runs fails the recording naming the signal, and writes nothing', async ({
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('killed-mid-turn');
  // Unique per repeat: the kill finds the agent by its run's root, which is keyed by the scenario name.
  const name = `record-killed-mid-turn-${testInfo.repeatEachIndex}`;
  const paths = await scratch({
    from: 'hello',
    name,
    input: (i) => ({ ...onPrompt(i, () => ({ text: c.prompt })), permissions: ['allow'] }),
  });
  const killer = killAgentWhenToolRuns(runDirs, 'sleep 300', OUTCOME_WITHIN_MS);
  const run = await recordThroughHarness(testInfo, runDirs, paths, c.emulator!, killer.step);
  expect(killer.killed).toBeDefined();
  expect(run.message).toBe(
    `${name}: not recorded, the run did not finish:\n  agent process 1 exited (SIGKILL) before the scenario finished; its stderr ends with:\n    acp-snapshot-agent: session sess-1 created in ${killer.root}/work${nextSteps(name, false)}`,
  );
  expect(run.result.exits).toEqual(['SIGKILL']);
  expect(run.rawLog, 'the announced tool call is in the log, up to the kill').toContain('"type":"tool/call"');
  await expectReportedFailure(testInfo, run, c, scrub);
  expectNothingWritten(testInfo, run);
});

/** Replays a recorded scratch scenario with the project's replay agent: it must pass the replay project's checks. */
async function expectReplaysGreen(
  paths: ScratchPaths,
  dirs: RunDirs,
  replayCommand: readonly string[],
): Promise<void> {
  const o = await runCorpusScenario({ paths, mode: 'replay', dirs, agentCommand: replayCommand });
  const verdict = replayVerdict(paths, o, await readExpected(paths), REPO_ROOT);
  expect(findingsText(verdict.findings), 'the recording replays green on every surface').toBe('');
}

test('malformed-tool-args: records the documented outcome (a failed tool result, end_turn), and it replays green', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('malformed-tool-args');
  expect(c.expect.recording).toBe('records');
  const paths = await scratch({ from: 'hello', name: 'record-malformed-tool-args' });
  const run = await recordThroughHarness(testInfo, runDirs, paths, c.emulator!);
  expect(run.message, 'the documented behaviour records').toBe('');
  expect(run.ms).toBeLessThan(OUTCOME_WITHIN_MS);
  expect(promptResponse(run).result?.stopReason).toBe(c.expect.stopReason);
  const stdout = await readFile(paths.stdout, 'utf8');
  expect(stdout, 'stdout.expected.jsonl holds the failed tool result').toMatch(c.expect.message);
  expect(stdout).not.toBe(run.before.get('scenarios/record-malformed-tool-args/stdout.expected.jsonl'));
  expectLoggedTurnEnd(run.rawLog, c);
  expect(recordedModelCalls(await readFile(paths.session, 'utf8'))).toBe(c.emulator!.length);
  expectNoSecretAttached(testInfo);
  await expectReplaysGreen(paths, runDirs, agentCommand);
});

test('hang-then-cancel: records the documented outcome ("cancelled" at once) into cancel-mid-stream, byte-identical, replaying green', async ({
  agentCommand,
  scratch,
  runDirs,
}, testInfo) => {
  const c = failureCase('hang-then-cancel');
  expect(c.expect.recording).toBe('records');
  // A recorded hang is replayed from the scenario's replay.override.json (replay cannot derive a call
  // that never finished), so the case records into a copy of the committed scenario that declares one.
  const from = 'cancel-mid-stream';
  const paths = await scratch({ from, name: 'record-hang-then-cancel' });
  const run = await recordThroughHarness(testInfo, runDirs, paths, c.emulator!);
  expect(run.message, 'the documented behaviour records').toBe('');
  expect(run.ms, 'the cancel ends the hung stream at once, not at the timeout').toBeLessThan(
    OUTCOME_WITHIN_MS,
  );
  const response = promptResponse(run);
  expect(response.result?.stopReason).toBe(c.expect.stopReason);
  expect(JSON.stringify(response)).toMatch(c.expect.message);
  expectLoggedTurnEnd(run.rawLog, c);
  const committed = scenarioPaths(fixturesDir(), from);
  expect(await readFile(paths.session, 'utf8')).toBe(await readFile(committed.session, 'utf8'));
  expect(await readFile(paths.stdout, 'utf8')).toBe(await readFile(committed.stdout, 'utf8'));
  expectNoSecretAttached(testInfo);
  await expectReplaysGreen(paths, runDirs, agentCommand);
});

test('provider-401 expected by input.json ("expectError") is recorded, byte-identical to the committed fixture', async ({
  scratch,
  runDirs,
}) => {
  // `ACP_SNAPSHOT_BASE_URL=emulator npm run record -- provider-401`, into a scratch copy.
  const name = 'provider-401';
  const paths = await scratch({ from: name, name });
  await recordScenario({
    paths,
    fixtures: paths.fixtures,
    agentCommand: RECORDING_AGENT,
    target: recordTargetFor(name, { ACP_SNAPSHOT_BASE_URL: 'emulator' }),
    dirs: runDirs,
  });
  const committed = scenarioPaths(fixturesDir(), name);
  expect(await readFile(paths.session, 'utf8')).toBe(await readFile(committed.session, 'utf8'));
  expect(await readFile(paths.stdout, 'utf8')).toBe(await readFile(committed.stdout, 'utf8'));
  expect(await readFile(paths.workspaceExpected, 'utf8')).toBe(
    await readFile(committed.workspaceExpected, 'utf8'),
  );
});
