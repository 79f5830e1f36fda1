/**
 * The messages of a surface that differs from its snapshot: the first changed field (line, JSON path,
 * changed words), the transcript lines around it and the command that accepts the change.
 */
import { refreshCommand, updateSnapshotsCommand } from '@acp-snapshot/core';
import { type Cause, jsonLinesCause } from './causes.js';
import { firstDifferingLine } from './diff.js';
import { firstTranscriptDifference, logTranscript, stdoutTranscript } from './transcript.js';

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

/** The first changed field of a JSON-lines difference: ` at line N, /json/path:\n  change`. */
function fieldText(field: NonNullable<Cause['field']>): string {
  return ` at line ${field.line}, ${field.path}:\n  ${field.change}`;
}

/** {@link fieldText} of the first difference of two JSON-lines texts; '' when no field is told. */
function fieldLine(kind: 'stdout' | 'log', expected: string, actual: string): string {
  const field = jsonLinesCause(kind, expected, actual)?.field;
  return field ? fieldText(field) : '';
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

/**
 * The line of a `toMatchAcpSnapshot` file that differs: `FILE differs at line N, /json/path:\n  change` for a
 * JSON-lines surface whose first change is a field, else `FILE differs (first difference at line N)`.
 */
export function snapshotFileMismatch(shown: string, expected: string, actual: string, cause?: Cause): string {
  const where = cause?.field
    ? fieldText(cause.field)
    : ` (first difference at line ${firstDifferingLine(expected, actual)})`;
  return `${shown} differs${where}`;
}
