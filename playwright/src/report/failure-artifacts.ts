/**
 * What a failing scenario test attaches for its reviewer: the diffs of what differs, computed on the texts
 * the comparison saw (the log as lines, as a transcript and its first differing event as a JSON Patch; stdout
 * as a transcript), then raw stdout, stderr and the logs.
 */
import type { TestInfo } from '@playwright/test';
import jsonPatch, { type Operation } from 'fast-json-patch';
import { compareSurface } from '../compare/surfaces.js';
import { DriverError, type DriverResult } from '../driver/driver.js';
import { firstDifferingLine, unifiedDiff } from './diff.js';
import { logTranscript, stdoutTranscript, transcriptDiff } from './transcript.js';

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

/**
 * The expected and actual log as the replay verdict compares them (the replayed header adopts the recorded
 * provider, both normalized), or undefined when there are not two logs or they compare equal.
 */
export function comparedLogs(
  expected: string | undefined,
  actual: string | undefined,
): { expected: string; actual: string } | undefined {
  if (expected === undefined || actual === undefined) return undefined;
  const log = compareSurface('log', expected, actual, { replayed: true });
  return log.equal ? undefined : { expected: log.expected!, actual: log.actual };
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
  const stdout =
    a.expectedStdout !== undefined && a.actualStdout !== undefined
      ? compareSurface('stdout', a.expectedStdout, a.actualStdout, { replayed: true })
      : undefined;
  if (stdout && !stdout.equal) {
    const names = { expected: 'stdout.expected.jsonl', actual: 'this run' };
    const transcript = transcriptDiff(
      stdoutTranscript(stdout.expected ?? ''),
      stdoutTranscript(stdout.actual),
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
