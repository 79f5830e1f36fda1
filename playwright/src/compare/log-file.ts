/**
 * The agent's session log file on disk, not only its records: after a graceful close its persistence
 * promises the one canonical form (session-log: the appender compacts the file into maximal packed
 * rows, keys in schema order, at close). The harness otherwise re-projects the records, so a log that
 * is never compacted would pass unnoticed.
 */

import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { clipText } from '@acp-snapshot/core';
import { type LogRecord, serializeLog } from '@acp-snapshot/session-log';
import { firstDifferingLine } from '../report/diff.js';

/**
 * Why `text` (the log file's content, decompressed) is not the canonical serialization of its own
 * `records`, naming the first non-canonical line and what the agent was expected to write there;
 * undefined when it is canonical.
 */
export function nonCanonicalLogProblem(
  file: string,
  text: string,
  records: readonly LogRecord[],
): string | undefined {
  const canonical = serializeLog(records);
  const line = firstDifferingLine(canonical, text);
  if (line === undefined) return undefined;
  const quote = (t: string) => {
    const lines = t.split('\n');
    if (t.endsWith('\n')) lines.pop();
    const l = lines[line - 1];
    return l === undefined ? '(end of file)' : clipText(l, 300);
  };
  return (
    `${file}:${line}: the agent's session log is not in the canonical packed form its persistence promises after a graceful close ` +
    `(session-log: the appender's close() compacts the file: every run of chunks packed, keys in schema order).\n` +
    `  line ${line} is:       ${quote(text)}\n` +
    `  expected to be:  ${quote(canonical)}\n` +
    `Does the agent close its session logs (and await the close) when stdin closes?`
  );
}

/**
 * Whether the run is one where that promise holds: every agent process exited 0 by itself after stdin
 * closed. A killed or crashed process may leave its journal uncompacted, and the harness cannot tell
 * whether a later process rewrote it, so such runs are not checked.
 */
export function promisesCanonicalLog(exits: ReadonlyArray<number | string | null>): boolean {
  return exits.length > 0 && exits.every((e) => e === 0);
}

/** The check of a harvested log file: reads it (gzip or plain) and compares it with its records' canonical form. */
export async function persistedLogProblem(
  harvested: { file: string; records: readonly LogRecord[] },
  exits: ReadonlyArray<number | string | null>,
): Promise<string | undefined> {
  if (!promisesCanonicalLog(exits)) return undefined;
  const bytes = await readFile(harvested.file);
  const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const text = (gzip ? gunzipSync(bytes) : bytes).toString('utf8');
  return nonCanonicalLogProblem(harvested.file, text, harvested.records);
}
