/**
 * Comparison of a run with its scenario's fixtures: the harvested, projected session log against
 * `session.jsonl` (custom matcher) and stdout against `stdout.expected.jsonl` (Playwright snapshot),
 * with the failure artifacts a reviewer needs attached inline.
 */
import {
  cutText,
  parseReplayReport,
  REPLAY_LINE_PREFIX,
  type ReplayReport,
  refreshCommand,
  updateSnapshotsCommand,
} from '@acp-snapshot/core';
import { expect, type TestInfo } from '@playwright/test';
import jsonPatch, { type Operation } from 'fast-json-patch';
import { DriverError, type DriverResult } from '../driver/driver.js';
import { NormalizeError, normalizeJsonlText, normalizeStdout } from '../normalize/normalize.js';
import { rootMap, type TestRoots } from '../roots/roots.js';
import { jsonLinesCause } from './causes.js';
import { firstDifferingLine, unifiedDiff } from './diff.js';
import { adoptRecordedProvider, recordedModelCalls } from './harvest.js';
import { firstTranscriptDifference, logTranscript, stdoutTranscript, transcriptDiff } from './transcript.js';

/** The scenario's stdout as the snapshot text: normalized JSON lines, newline-terminated. */
export function stdoutSnapshotText(result: Pick<DriverResult, 'stdout'>, roots: TestRoots): string {
  const lines = normalizeStdout(result.stdout, { roots: rootMap(roots), aliases: roots.aliases });
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** Lines of a stdout.expected.jsonl text that are not JSON, as "line N: ..." messages. */
export function nonJsonLines(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    try {
      JSON.parse(line);
    } catch {
      out.push(`line ${i + 1}: ${JSON.stringify(cutText(line, 120))}`);
    }
  });
  return out;
}

/** What the replay plugin reported over all agent processes of a run: the calls claimed, of how many. */
export type UnionReport = Pick<ReplayReport, 'consumed' | 'total'>;

/** Unions the replay reports of all agent processes of a run; undefined when no process reported. */
export function unionReplayReports(stderr: readonly string[]): UnionReport | undefined {
  let found = false;
  const consumed = new Set<number>();
  let total = 0;
  for (const text of stderr) {
    for (const line of text.split('\n')) {
      const report = parseReplayReport(line);
      if (!report) continue;
      found = true;
      for (const c of report.consumed) consumed.add(c);
      total = Math.max(total, report.total);
    }
  }
  return found ? { consumed: [...consumed].sort((a, b) => a - b), total } : undefined;
}

/** The "calls left unused" failure message, or undefined when every recorded model call was served. */
export function unusedCallsProblem(
  name: string,
  report: UnionReport | undefined,
  recordedCalls: number,
): string | undefined {
  if (!report) {
    return recordedCalls > 0
      ? `${name}: session.jsonl holds ${recordedCalls} model call(s) but no agent process printed an "llm-replay:" report on stderr (is the agent running with the replay overlay?)`
      : undefined;
  }
  const unused: number[] = [];
  for (let n = 1; n <= report.total; n++) if (!report.consumed.includes(n)) unused.push(n);
  if (unused.length === 0) return undefined;
  return `${name}: ${unused.length} of ${report.total} recorded model call(s) were never requested (unused calls: ${unused.join(', ')}, numbered from 1). The agent now makes fewer model calls than the recording; if that is intended, run \`${refreshCommand(name)}\`.`;
}

/**
 * The "calls left unused" problem of a replayed run, from its agents' stderr and the session log text it
 * replayed (`file` names it in parse errors); undefined when every recorded model call was served.
 */
export function unusedRecordedCalls(
  name: string,
  stderr: readonly string[],
  expectedLog: string | undefined,
  file?: string,
): string | undefined {
  return unusedCallsProblem(
    name,
    unionReplayReports(stderr),
    expectedLog ? recordedModelCalls(expectedLog, file) : 0,
  );
}

/** Lines the replay plugin wrote to stderr other than its final report: its errors (drift, exhausted script...). */
export function replayErrors(stderr: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of stderr.flatMap((t) => t.split('\n'))) {
    if (!line.startsWith(REPLAY_LINE_PREFIX)) continue;
    const rest = line.slice(REPLAY_LINE_PREFIX.length);
    const isReport = parseReplayReport(line) !== undefined;
    // Warnings and the per-process "never made by this agent process" note are not failures: the
    // harness judges unused calls over all processes of the scenario.
    if (!isReport && !/^warning:/.test(rest) && !/never made .*by this agent process/.test(rest))
      out.push(rest);
  }
  return out;
}

/**
 * Why replay could not serve the agent (request drift, exhausted script...): replay-plugin lines on
 * stderr and turns the log ended with a replay error.
 */
export function replayFailures(
  stderr: readonly string[],
  records: ReadonlyArray<{ event: { type: string } }>,
): string[] {
  const out = replayErrors(stderr);
  if (out.length > 0) return out;
  for (const r of records) {
    const e = r.event as { type: string; kind?: string; error?: { message: string; code?: string } };
    if (e.type !== 'turn/end' || e.kind !== 'error' || !e.error) continue;
    if (/replay|drift|exhausted/i.test(`${e.error.code ?? ''} ${e.error.message}`)) out.push(e.error.message);
  }
  return out;
}

/** The failure message of a scenario whose model calls replay could not serve (drift, exhausted script...). */
export function replayFailureMessage(name: string, failures: readonly string[], step?: string): string {
  const hint = `${refreshCommand(name)}`;
  const text = failures.join('\n');
  return (
    `${name}: replay could not serve the agent's model calls from the recording${step ? ` (${step} failed)` : ''}:\n${text}` +
    (text.includes(hint) ? '' : `\nIf the change is intended, run \`${hint}\`.`)
  );
}

/** The JSON Patch from the first differing event of the expected log to the actual one. */
export function firstEventPatch(
  expected: string,
  actual: string,
): { line: number; patch: Operation[]; expected: unknown; actual: unknown } | undefined {
  const line = firstDifferingLine(expected, actual);
  if (line === undefined) return undefined;
  const parse = (text: string) => {
    const l = text.split('\n')[line - 1];
    if (l === undefined || l === '') return null;
    try {
      return JSON.parse(l) as unknown;
    } catch {
      return l;
    }
  };
  const e = parse(expected);
  const a = parse(actual);
  const patch =
    e && a && typeof e === 'object' && typeof a === 'object'
      ? jsonPatch.compare(e as object, a as object)
      : [{ op: 'replace' as const, path: '', value: a }];
  return { line, patch, expected: e, actual: a };
}

/** The content type of JSON Lines attachments. */
export const JSONL = 'application/jsonl';

/** Everything attached to a failing scenario test. */
export interface FailureArtifacts {
  result?: DriverResult;
  expectedLog?: string;
  actualLog?: string;
  rawLog?: string;
  /** stdout.expected.jsonl and this run's normalized stdout (its snapshot text). */
  expectedStdout?: string;
  actualStdout?: string;
  /** Applied to every attached text (record mode scrubs secrets before anything reaches disk). */
  scrub?: (text: string) => string;
}

/** What a driver failure leaves to attach: its observations and the log the agent persisted before it failed. */
export function driverFailureArtifacts(e: unknown): Pick<FailureArtifacts, 'result' | 'rawLog'> {
  if (!(e instanceof DriverError)) return {};
  return { result: e.result, ...(e.rawLog !== undefined ? { rawLog: e.rawLog } : {}) };
}

/** A log text as the session-log comparison sees it; a text normalization refuses is compared as it is. */
function normalizedLog(text: string): string {
  try {
    return normalizeJsonlText(text);
  } catch (e) {
    if (e instanceof NormalizeError) return text;
    throw e;
  }
}

/**
 * The expected and actual log as {@link sessionLogExpect} compares them (the replayed header adopts the
 * recorded provider, both normalized), or undefined when there are not two logs or they compare equal.
 */
export function comparedLogs(
  expected: string | undefined,
  actual: string | undefined,
): { expected: string; actual: string } | undefined {
  if (expected === undefined || actual === undefined) return undefined;
  const e = normalizedLog(expected);
  const a = normalizedLog(adoptRecordedProvider(actual, expected));
  return e === a ? undefined : { expected: e, actual: a };
}

/**
 * Attaches the diffs of what differs (the log as lines, as a transcript and its first differing event
 * as a JSON Patch; stdout as a transcript), computed on the texts the comparison saw, then raw stdout,
 * stderr and the logs.
 */
export async function attachFailureArtifacts(testInfo: TestInfo, a: FailureArtifacts): Promise<void> {
  const scrub = a.scrub ?? ((t: string) => t);
  const text = (name: string, body: string, contentType = 'text/plain') =>
    testInfo.attach(name, { body: Buffer.from(scrub(body)), contentType });
  // JSON Lines: shown inline in the HTML report, left out of the terminal (which prints only text/*),
  // where the error message already says what changed.
  const jsonl = (name: string, body: string) => text(name, body, JSONL);
  const logs = comparedLogs(a.expectedLog, a.actualLog);
  if (logs) {
    const names = { expected: 'session.jsonl', actual: 'replay' };
    await text('session.jsonl.diff', unifiedDiff(logs.expected, logs.actual, names), 'text/x-diff');
    const transcript = transcriptDiff(logTranscript(logs.expected), logTranscript(logs.actual), names);
    if (transcript) await text('session.transcript.diff', transcript, 'text/x-diff');
    const p = firstEventPatch(logs.expected, logs.actual);
    if (p)
      await text(
        `first-differing-event.line-${p.line}.patch.json`,
        `${JSON.stringify(p.patch, null, 2)}\n`,
        'application/json',
      );
  }
  if (a.expectedStdout !== undefined && a.actualStdout !== undefined && a.expectedStdout !== a.actualStdout) {
    const names = { expected: 'stdout.expected.jsonl', actual: 'this run' };
    const transcript = transcriptDiff(
      stdoutTranscript(a.expectedStdout),
      stdoutTranscript(a.actualStdout),
      names,
    );
    if (transcript) await text('stdout.transcript.diff', transcript, 'text/x-diff');
  }
  if (a.result) {
    await jsonl('stdout.raw.jsonl', a.result.stdout.map((l) => l.text).join('\n'));
    await text(
      'stderr.txt',
      a.result.stderr.map((s, i) => `--- agent process ${i + 1} ---\n${s}`).join('\n'),
    );
  }
  if (a.actualLog !== undefined) await jsonl('session.projected.jsonl', a.actualLog);
  if (a.rawLog !== undefined) await jsonl('session.raw.jsonl', a.rawLog);
}

/**
 * The transcript part of a mismatch message: the first differing transcript lines with the changed
 * words marked, or, when the transcripts agree, that the change is in a detail they leave out.
 */
export function transcriptExcerpt(
  expected: readonly string[],
  actual: readonly string[],
  attachment: string,
): string {
  const first = firstTranscriptDifference(expected, actual);
  return first
    ? `In the transcript (the whole transcript diff is attached as ${attachment}):\n${first}\n`
    : 'The transcripts agree: the change is in a detail the transcript leaves out (the field named above).\n';
}

/** The field line of a JSON-lines difference: `at line N, /json/path:\n  change`; '' when not told. */
function fieldLine(kind: 'stdout' | 'log', expected: string, actual: string): string {
  const field = jsonLinesCause(kind, expected, actual)?.field;
  return field ? ` at line ${field.line}, ${field.path}:\n  ${field.change}` : '';
}

/**
 * The message of a stdout snapshot mismatch: the first changed field (line, JSON path, changed words),
 * the first differing transcript lines and the command that accepts the change.
 */
export function stdoutMismatchMessage(name: string, expected: string, actual: string): string {
  return (
    `${name}: stdout differs from stdout.expected.jsonl${fieldLine('stdout', expected, actual)}\n` +
    transcriptExcerpt(stdoutTranscript(expected), stdoutTranscript(actual), 'stdout.transcript.diff') +
    `If the change is intended, run \`${updateSnapshotsCommand(name)}\`.`
  );
}

/** The message of a session log mismatch (texts already normalized), with the command that accepts it. */
export function sessionLogMismatchMessage(
  scenario: string,
  file: string,
  wanted: string,
  actual: string,
): string {
  return (
    `The re-persisted, projected session log differs from ${file}${fieldLine('log', wanted, actual)}\n` +
    transcriptExcerpt(logTranscript(wanted), logTranscript(actual), 'session.transcript.diff') +
    '(the line diff, the JSON Patch of the first differing event, stdout and stderr are attached too)\n' +
    `If the change is intended, run \`${refreshCommand(scenario)}\`.`
  );
}

/** Custom matchers: `expect(actualProjection).toMatchSessionLog({ text, file, scenario })`. */
export const sessionLogExpect = expect.extend({
  toMatchSessionLog(received: string, expected: { text: string; file: string; scenario: string }) {
    const actual = normalizeJsonlText(received);
    const wanted = normalizeJsonlText(expected.text);
    if (actual === wanted) {
      return { pass: true, name: 'toMatchSessionLog', message: () => `session log equals ${expected.file}` };
    }
    return {
      pass: false,
      name: 'toMatchSessionLog',
      message: () => sessionLogMismatchMessage(expected.scenario, expected.file, wanted, actual),
    };
  },
});
