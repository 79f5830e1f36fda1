/**
 * The verdict: the one definition of "this run equals its snapshots", in its two readings. The replay
 * verdict of a corpus scenario ({@link replayVerdict}): the replay suite (which turns findings into test
 * errors, and lets `--update-snapshots` rewrite the surfaces it owns), refresh (which refuses on the findings
 * it cannot rewrite), the failure catalog's harness layer and the proofs (which expect no finding). The
 * verdict of `toMatchAcpSnapshot` ({@link snapshotVerdict}): its message and the snapshot files to write.
 * Both compare each surface with {@link compareSurface}. Pure: the texts come in, the files to write go out
 * (read and written through a `SnapshotStore`, snapshot-store.ts).
 */

import { relative } from 'node:path';
import { acceptSnapshotsCommand, recordCommand } from '@acp-snapshot/core';
import type { FullConfig } from '@playwright/test';
import { type Cause, driftCause, perTestDriftText } from '../report/causes.js';
import {
  sessionLogMismatchMessage,
  snapshotFileMismatch,
  stdoutMismatchMessage,
} from '../report/mismatch-messages.js';
import type { ScenarioPaths } from '../scenario/corpus.js';
import { replayDrift, replayFailureMessage, replayFailures, unusedRecordedCalls } from './replay-report.js';
import { compareSurface, liveLog, nonJsonLines, type Surface, type SurfaceComparison } from './surfaces.js';
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

/** The findings of a run that stopped before the end because replay could not serve a model call. */
export function driftFindings(name: string, stderr: readonly string[], step?: string): Finding[] {
  const failures = replayFailures(stderr, []);
  if (failures.length === 0) return [];
  const drift = replayDrift(stderr);
  return [
    {
      kind: 'replay',
      message: replayFailureMessage(name, [perTestDriftText(failures.join('\n'), drift)], step),
      ...(drift ? { cause: driftCause(drift) } : {}),
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
  const actualLog = liveLog(run.projected.text, expected.log, true);
  const failures = replayFailures(run.result.stderr, run.records);
  if (failures.length > 0) {
    const drift = replayDrift(run.result.stderr);
    const message = replayFailureMessage(name, [perTestDriftText(failures.join('\n'), drift)]);
    return {
      findings: [{ kind: 'replay', message, ...(drift ? { cause: driftCause(drift) } : {}) }],
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
  const compared = [
    compareSurface('log', expected.log, run.projected.text, {
      replayed: true,
      sidecars: { dir: paths.sidecars, live: run.projected.sidecars },
    }),
    compareSurface('stdout', expectedStdout, run.stdoutText, { replayed: true }),
    compareSurface('workspace', expected.workspace, run.workspaceText, { replayed: true }),
  ];
  // A corpus scenario attaches no MCP server: these three are its surfaces.
  type CorpusSurface = Exclude<Surface, 'mcp'>;
  const message: Record<CorpusSurface, (c: SurfaceComparison) => string> = {
    log: (c) => sessionLogMismatchMessage(name, shown(paths.session), c.expected!, c.actual),
    stdout: (c) => stdoutMismatchMessage(name, c.expected!, c.actual),
    workspace: (c) => workspaceMismatchMessage(name, shown(paths.workspaceExpected), c.expected, c.actual),
  };
  for (const c of compared)
    if (!c.equal)
      findings.push({
        kind: c.surface as CorpusSurface,
        message: message[c.surface as CorpusSurface](c),
        ...(c.cause ? { cause: c.cause } : {}),
      });
  return { findings, actualLog, compared: true };
}

/** The findings' messages as one text ('' when there are none): what a proof or a refusal shows. */
export function findingsText(findings: readonly Finding[]): string {
  return findings.map((f) => f.message).join('\n');
}

/** A snapshot file of `toMatchAcpSnapshot`: which surface, how messages name it, what it holds. */
export interface SnapshotFile {
  surface: Surface;
  /** The file as messages name it (relative to the project). */
  shown: string;
  /** Its text, undefined when there is none yet. */
  expected: string | undefined;
}

/** What a `toMatchAcpSnapshot` run brings to its verdict. */
export interface SnapshotRun {
  /**
   * The run's surfaces as snapshot texts (a log only when the agent persisted one, the MCP traffic only when
   * the test attached a test MCP server).
   */
  texts: { stdout: string; workspace: string; log?: string; mcp?: string };
  /** The run recorded the model's calls: what it wrote is what the next replay is compared with. */
  recording: boolean;
  /** The run replayed a recording (its log adopts the recorded provider). */
  replayed: boolean;
  /** Why the model replay failed, when it did: nothing is written, and no command that writes is suggested. */
  replayFailure?: string;
  /** The run's own problems (an agent that did not exit...). */
  problems: readonly string[];
}

/** Options of {@link snapshotVerdict}. */
export interface SnapshotVerdictOptions {
  /** Playwright's `--update-snapshots` mode. */
  updateSnapshots: FullConfig['updateSnapshots'];
  /** The test's title: the accept command selects it. */
  title: string;
  /** The snapshot directory, for the message of a pass (`.not`). */
  dir: string;
}

/** The verdict of `toMatchAcpSnapshot`. */
export interface SnapshotVerdict {
  pass: boolean;
  message: string;
  /** Each surface compared (the expected text as compared: what a diff shows). */
  compared: SurfaceComparison[];
  /** The snapshot files to write, as `--update-snapshots` (or recording) says. */
  writes: Array<{ surface: Surface; text: string }>;
  /** The surfaces that differ and were left as they are: each one's diff is what a reviewer needs. */
  differs: SurfaceComparison[];
}

/**
 * Judges a run against its `toMatchAcpSnapshot` files the way `toMatchSnapshot` does: a missing snapshot is
 * written unless the mode is `none` (failing the test unless the run updates snapshots), `all` and `changed`
 * rewrite what differs, a recording rewrites everything it changed, and a failed model replay writes nothing
 * (its surfaces show the failure).
 */
export function snapshotVerdict(
  run: SnapshotRun,
  files: readonly SnapshotFile[],
  opts: SnapshotVerdictOptions,
): SnapshotVerdict {
  const mode = opts.updateSnapshots;
  const failed = run.replayFailure !== undefined;
  const compared: SurfaceComparison[] = [];
  const writes: SnapshotVerdict['writes'] = [];
  const differs: SurfaceComparison[] = [];
  const failures: string[] = [];
  for (const file of files) {
    const text = run.texts[file.surface];
    if (text === undefined) continue;
    const c = compareSurface(file.surface, file.expected, text, { replayed: run.replayed });
    compared.push(c);
    if (c.equal) continue;
    const write =
      !failed &&
      (run.recording ||
        mode === 'all' ||
        mode === 'changed' ||
        (c.expected === undefined && mode !== 'none'));
    if (write) writes.push({ surface: file.surface, text: c.actual });
    if (run.recording) continue;
    // Playwright's rule for a first snapshot: an update run (`--update-snapshots=missing|changed|all`) writes
    // it and passes; any other run writes it and fails, so no run passes on a snapshot nobody has seen.
    if (c.expected === undefined && write && mode !== 'default') continue;
    if (c.expected === undefined)
      failures.push(
        `${file.shown}: no snapshot yet${write ? '; written: review it, commit it, and run again' : failed ? ' (not written: the model replay failed)' : ' (run with --update-snapshots to write it)'}.`,
      );
    else if (!write) {
      differs.push(c);
      failures.push(snapshotFileMismatch(file.shown, c.expected, c.actual, c.cause));
    }
  }
  const pass = failures.length === 0 && run.problems.length === 0 && !failed;
  const message = pass
    ? `the ACP run matches its snapshots (${opts.dir}/)`
    : [
        ...(failed
          ? [
              run.replayFailure,
              failures.length > 0
                ? 'The snapshots below differ after a failed model replay: fix the replay (or record again) first; do not accept them.'
                : '',
            ]
          : []),
        ...run.problems.map((p) => `problem: ${p}`),
        ...failures,
        differs.length > 0 && !failed
          ? `If the change is intended, accept it: ${acceptSnapshotsCommand(`'${opts.title}'`)} (the diffs are attached).`
          : '',
      ]
        .filter(Boolean)
        .join('\n');
  return { pass, message, compared, writes, differs };
}
