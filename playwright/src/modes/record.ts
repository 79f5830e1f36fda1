/**
 * Records one scenario: starts the bundled emulator when asked, runs the agent in record mode,
 * checks the run, then writes the scrubbed fixtures. Used by the record project and by the
 * record round-trip proof.
 */

import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordCommand } from '@acp-snapshot/core';
import { loadScript, startEmulator } from '@acp-snapshot/emulator';
import { machineSecrets, type Secrets, scrub as scrubSecrets } from '@acp-snapshot/model-http';
import { replaceLogRoots, serializeLog } from '@acp-snapshot/session-log';
import type { TestInfo } from '@playwright/test';
import { DriverError, type DriverResult, type StepRunner } from '../driver/driver.js';
import type { ScenarioRules } from '../profile.js';
import { attachFailureArtifacts, driverFailureArtifacts } from '../report/failure-artifacts.js';
import { rootMap } from '../roots/roots.js';
import type { RunDirs } from '../roots/run-dirs.js';
import { ALL_ROW_KINDS, ALL_ROW_KINDS_SOURCE } from '../rules/guards.js';
import { REPO_ROOT, type ScenarioPaths } from '../scenario/corpus.js';
import { writeScenarioFixtures } from './fixture-write.js';
import { LOCAL_PLACEHOLDER_KEY, type RecordTarget, recordTarget } from './record-gate.js';
import { ReviewError, reviewScenario, type ScenarioReview } from './review.js';
import { type RunOutcome, runCorpusScenario } from './scenario-run.js';

/** The emulator's model script for scenario `name`. */
export const emulatorScript = (name: string) => join(REPO_ROOT, 'scripts/emulator-scripts', `${name}.json`);

/**
 * What scenario `name` records against. Without a key or base URL, a scenario with no emulator script
 * is one that calls no model (another team's agent, or initialize + session/new only): it records
 * against the bundled emulator with an empty script, so it needs no key and any model call still
 * fails the recording loudly. Every other case is {@link recordTarget}'s (which fails without a model).
 */
export function recordTargetFor(name: string, env: NodeJS.ProcessEnv): RecordTarget {
  const modelConfigured = !!env.DEEPSEEK_API_KEY?.trim() || !!env.ACP_SNAPSHOT_BASE_URL?.trim();
  if (!modelConfigured && !existsSync(emulatorScript(name)))
    return { kind: 'emulator', apiKey: LOCAL_PLACEHOLDER_KEY };
  return recordTarget(env);
}

/** Options of {@link recordScenario}. */
export interface RecordOptions {
  paths: ScenarioPaths;
  /** The fixtures directory whose sidecars/ receives new sidecars. */
  fixtures: string;
  agentCommand: readonly string[];
  /** Named agents a scenario may pick (the project's `use.agents`). */
  agents?: Readonly<Record<string, readonly string[]>>;
  /** The agent profiles' `normalize` rules, applied to the scenario's stdout. */
  rules?: ScenarioRules;
  target: RecordTarget;
  /** Owns the run's generated roots (the test's `runDirs` fixture). */
  dirs: RunDirs;
  testInfo?: TestInfo;
  step?: StepRunner;
}

/** What a recording wrote. */
export interface Recorded {
  outcome: RunOutcome;
  /** Sidecar files newly written. */
  newSidecars: string[];
  /** Model requests the emulator served (emulator target only). */
  emulatorRequests?: number;
  /**
   * The new recording against the session.jsonl it replaced, call by call (playwright/src/modes/review.ts); a string
   * when the replaced fixture could not be read; absent for a first recording.
   */
  review?: ScenarioReview | string;
}

/**
 * A recording that failed: nothing was written. The message is scrubbed of secrets (it reaches the
 * report on disk); `result` and `rawLog` are what the run observed, unscrubbed (the attachments are
 * the scrubbed copies).
 */
export class RecordingFailed extends Error {
  override name = 'RecordingFailed';
  constructor(
    message: string,
    readonly result: DriverResult,
    /** The agent's persisted log as harvested (raw rows), '' when it persisted none. */
    readonly rawLog: string,
  ) {
    super(message);
  }
}

/** Matches the driver's problem for a prompt the agent answered with an unexpected JSON-RPC error. */
const UNEXPECTED_RPC_ERROR = /: the agent answered with JSON-RPC error -?\d+: /;

/**
 * The failure message of a recording: the scenario, that nothing was written, what went wrong, and
 * what to do next (an error the scenario means to record is declared with `expectError`).
 */
function notRecordedMessage(name: string, what: string, problems: readonly string[]): string {
  const expectErrorHint = problems.some((p) => UNEXPECTED_RPC_ERROR.test(p))
    ? ' If the scenario is meant to record that error, add "expectError" with a part of its message to the prompt step in input.json (as fixtures/scenarios/provider-401 does).'
    : '';
  return (
    `${name}: not recorded, ${what}:\n${problems.map((p) => `  ${p.replaceAll('\n', '\n  ')}`).join('\n')}\n` +
    `Nothing was written: the scenario's fixtures are unchanged. Fix the cause and record again: ${recordCommand(name)}.${expectErrorHint}`
  );
}

/** Records a scenario and writes its fixtures; on failure throws {@link RecordingFailed} (artifacts attached), writing nothing. */
export async function recordScenario(opts: RecordOptions): Promise<Recorded> {
  const { paths, target, testInfo } = opts;
  const name = paths.name;
  let baseUrl: string | undefined;
  let emulator:
    | { url: string; close(): Promise<void>; readonly served: number; readonly requests: readonly unknown[] }
    | undefined;
  let scriptEntries = 0;
  let scripted = false;
  if (target.kind === 'emulator') {
    const scriptPath = emulatorScript(name);
    // A scenario without a script calls no model: an empty script makes any call fail loudly.
    scripted = existsSync(scriptPath);
    const script = scripted ? loadScript(scriptPath) : { responses: [] };
    scriptEntries = script.responses.length;
    emulator = await startEmulator({ script });
    baseUrl = emulator.url;
  } else if (target.kind === 'server') baseUrl = target.baseUrl;

  const secrets = machineSecrets(target.apiKey === LOCAL_PLACEHOLDER_KEY ? [] : [target.apiKey]);
  const scrub = (t: string) => scrubSecrets(t, secrets);
  let outcome: RunOutcome;
  try {
    outcome = await runCorpusScenario({
      paths,
      mode: 'record',
      dirs: opts.dirs,
      agentCommand: opts.agentCommand,
      ...(opts.agents ? { agents: opts.agents } : {}),
      ...(opts.rules ? { rules: opts.rules } : {}),
      apiKey: target.apiKey,
      ...(opts.step ? { step: opts.step } : {}),
      ...(baseUrl ? { baseUrl } : {}),
    });
  } catch (e) {
    if (testInfo) await attachFailureArtifacts(testInfo, { ...driverFailureArtifacts(e), scrub });
    if (!(e instanceof DriverError)) throw e;
    const what = e.message.startsWith(`${name}: `) ? e.message.slice(name.length + 2) : e.message;
    throw new RecordingFailed(
      scrub(notRecordedMessage(name, 'the run did not finish', [what])),
      e.result,
      e.rawLog ?? '',
    );
  } finally {
    await emulator?.close();
  }
  const problems = [...outcome.result.problems];
  if (emulator && !scripted && emulator.requests.length > 0) {
    // The root cause goes first: the failed turn it caused is listed after it.
    problems.unshift(
      `${name}: the agent made ${emulator.requests.length} model call(s), but the scenario has no emulator script (${emulatorScript(name)}), so it was recorded as one that calls no model; to record model calls set DEEPSEEK_API_KEY or ACP_SNAPSHOT_BASE_URL (or write the emulator script)`,
    );
  } else if (emulator && emulator.served !== scriptEntries) {
    problems.push(
      `${name}: the agent made ${emulator.served} model call(s) but ${emulatorScript(name)} scripts ${scriptEntries}; make the script match the scenario`,
    );
  }
  if (problems.length > 0) {
    if (testInfo)
      await attachFailureArtifacts(testInfo, {
        result: outcome.result,
        actualLog: outcome.projected.text,
        rawLog: outcome.rawLog,
        scrub,
      });
    throw new RecordingFailed(
      scrub(notRecordedMessage(name, 'the run did not go as input.json says', problems)),
      outcome.result,
      outcome.rawLog,
    );
  }
  const review = await reviewAgainstReplaced(paths, scrubSecrets(outcome.projected.text, secrets));
  const newSidecars = await writeScenarioFixtures(
    {
      dir: paths.dir,
      sidecarsDir: join(opts.fixtures, 'sidecars'),
      sessionText: outcome.projected.text,
      stdoutText: outcome.stdoutText,
      workspaceText: outcome.workspaceText,
      sidecars: outcome.projected.sidecars,
    },
    secrets,
  );
  if (name === ALL_ROW_KINDS) await writeAllRowKindsSource(paths, outcome, secrets);
  return {
    outcome,
    newSidecars,
    ...(emulator ? { emulatorRequests: emulator.served } : {}),
    ...(review === undefined ? {} : { review }),
  };
}

/**
 * The review of a re-recording against the fixture it is about to replace (still on disk). The
 * override, which record leaves as it is, answers in both versions where the scenario has one.
 */
async function reviewAgainstReplaced(
  paths: ScenarioPaths,
  sessionText: string,
): Promise<ScenarioReview | string | undefined> {
  const old = await readFile(paths.session, 'utf8').catch(() => undefined);
  if (old === undefined) return undefined;
  const override = await readFile(paths.override, 'utf8').catch(() => undefined);
  const names = { session: paths.session, override: paths.override };
  try {
    return reviewScenario(
      paths.name,
      { texts: { session: old, override }, names: { ...names, session: `${paths.session} (replaced)` } },
      {
        texts: { session: sessionText, override },
        names: { ...names, session: `${paths.session} (recorded)` },
      },
    );
  } catch (e) {
    if (!(e instanceof ReviewError)) throw e;
    return `the recording was not compared with the fixture it replaced: ${e.message}`;
  }
}

/**
 * The independent source of the all-row-kinds fixture: the raw log itself (envelopes, inline prompt
 * and tools), with only the volatile roots replaced so it is machine-independent. Written by record and
 * by refresh, so the guard that compares it with session.jsonl holds after either.
 */
export async function writeAllRowKindsSource(
  paths: ScenarioPaths,
  outcome: Pick<RunOutcome, 'records' | 'roots'>,
  secrets: Secrets,
): Promise<void> {
  const raw = serializeLog(replaceLogRoots(outcome.records, rootMap(outcome.roots)));
  await writeFile(join(paths.dir, ALL_ROW_KINDS_SOURCE), scrubSecrets(raw, secrets));
}
