/**
 * The replay verdict: the one definition of "this replayed run equals its scenario's fixtures". Every
 * mode and test that judges a replay calls it: the replay suite (which turns findings into test errors,
 * and lets `--update-snapshots` rewrite the surfaces it owns), refresh (which refuses on the findings it
 * cannot rewrite), the failure catalog's harness layer and the proofs (which expect no finding). Pure.
 */

import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { recordCommand } from '@acp-snapshot/core';
import { normalizeJsonlText } from '../normalize/normalize.js';
import type { ScenarioPaths } from '../scenario/corpus.js';
import {
  type Cause,
  driftCause,
  jsonLinesCause,
  logCause,
  perTestDriftText,
  workspaceCause,
} from './causes.js';
import {
  nonJsonLines,
  replayFailureMessage,
  replayFailures,
  sessionLogMismatchMessage,
  stdoutMismatchMessage,
  unusedRecordedCalls,
} from './compare.js';
import { adoptRecordedProvider } from './harvest.js';
import { workspaceMismatchMessage } from './workspace.js';

/**
 * Which check a finding comes from. `replay` (the model calls no longer line up), `unused` (recorded calls
 * never made) and `run` (input.json's expectations, orphans, the log file on disk) are about the run;
 * `log`, `stdout` and `workspace` are the compared surfaces a refresh or `--update-snapshots` rewrites.
 */
export type FindingKind = 'replay' | 'unused' | 'run' | 'missing' | 'log' | 'stdout' | 'workspace';

export interface Finding {
  kind: FindingKind;
  /** What a reader sees: the scenario, the first differing part, the change, the command. */
  message: string;
  /** What the summary reporter groups failures by, when the finding has one. */
  cause?: Cause;
}

/** The scenario's committed surfaces, as text (undefined: the file is missing). */
export interface ExpectedSurfaces {
  log: string | undefined;
  stdout: string | undefined;
  workspace: string | undefined;
}

/** What a replayed run produced, as the comparison sees it (a RunOutcome has it all). */
export interface ReplayedRun {
  result: { stderr: readonly string[]; problems: readonly string[] };
  records: ReadonlyArray<{ event: { type: string } }>;
  projected: { text: string; sidecars: Record<string, string> };
  stdoutText: string;
  workspaceText: string;
}

export interface ReplayVerdict {
  findings: Finding[];
  /** The replayed log with the recording's provider adopted: the text compared with session.jsonl. */
  actualLog: string;
  /** Whether the surfaces were compared: not when replay could not serve the model (a diff would mislead). */
  compared: boolean;
}

/** Reads the committed surfaces of a scenario. */
export async function readExpected(paths: ScenarioPaths): Promise<ExpectedSurfaces> {
  const read = (p: string) => readFile(p, 'utf8').catch(() => undefined);
  const [log, stdout, workspace] = await Promise.all([
    read(paths.session),
    read(paths.stdout),
    read(paths.workspaceExpected),
  ]);
  return { log, stdout, workspace };
}

/** The findings of a run that stopped before the end because replay could not serve a model call. */
export function driftFindings(name: string, stderr: readonly string[], step?: string): Finding[] {
  const failures = replayFailures(stderr, []);
  if (failures.length === 0) return [];
  const cause = driftCause(failures);
  return [
    {
      kind: 'replay',
      message: replayFailureMessage(name, [perTestDriftText(failures.join('\n'))], step),
      ...(cause ? { cause } : {}),
    },
  ];
}

/**
 * Judges a replayed run against its scenario's committed surfaces. `root` is what file names in
 * messages are shown relative to (a fixtures copy outside it is shown absolute).
 */
export function replayVerdict(
  paths: ScenarioPaths,
  run: ReplayedRun,
  expected: ExpectedSurfaces,
  root: string,
): ReplayVerdict {
  const name = paths.name;
  const shown = (p: string) => (relative(root, p).startsWith('..') ? p : relative(root, p));
  const actualLog = adoptRecordedProvider(run.projected.text, expected.log);
  const drift = replayFailures(run.result.stderr, run.records);
  if (drift.length > 0) {
    const cause = driftCause(drift);
    const message = replayFailureMessage(name, [perTestDriftText(drift.join('\n'))]);
    return {
      findings: [{ kind: 'replay', message, ...(cause ? { cause } : {}) }],
      actualLog,
      compared: false,
    };
  }
  const findings: Finding[] = run.result.problems.map((message) => ({ kind: 'run', message }));
  const unused = unusedRecordedCalls(name, run.result.stderr, expected.log, paths.session);
  if (unused) findings.push({ kind: 'unused', message: unused });
  if (expected.log === undefined) {
    findings.push({
      kind: 'missing',
      message: `${shown(paths.session)} is missing; record it: ${recordCommand(name)}`,
    });
    return { findings, actualLog, compared: false };
  }
  const expectedStdout = expected.stdout ?? '';
  const notJson = nonJsonLines(expectedStdout);
  if (notJson.length > 0)
    findings.push({
      kind: 'run',
      message: `${shown(paths.stdout)}: every line must be JSON; not JSON: ${notJson.join('; ')}`,
    });
  const wantedLog = normalizeJsonlText(expected.log);
  const liveLog = normalizeJsonlText(actualLog);
  if (wantedLog !== liveLog)
    findings.push({
      kind: 'log',
      message: sessionLogMismatchMessage(name, shown(paths.session), wantedLog, liveLog),
      cause: logCause(wantedLog, liveLog, { dir: paths.sidecars, live: run.projected.sidecars }),
    });
  if (run.stdoutText !== expectedStdout) {
    const cause = jsonLinesCause('stdout', expectedStdout, run.stdoutText);
    findings.push({
      kind: 'stdout',
      message: stdoutMismatchMessage(name, expectedStdout, run.stdoutText),
      ...(cause ? { cause } : {}),
    });
  }
  if (run.workspaceText !== expected.workspace)
    findings.push({
      kind: 'workspace',
      message: workspaceMismatchMessage(
        name,
        shown(paths.workspaceExpected),
        expected.workspace,
        run.workspaceText,
      ),
      cause: workspaceCause(expected.workspace, run.workspaceText),
    });
  return { findings, actualLog, compared: true };
}

/** The findings' messages as one text ('' when there are none): what a proof or a refusal shows. */
export function findingsText(findings: readonly Finding[]): string {
  return findings.map((f) => f.message).join('\n');
}
