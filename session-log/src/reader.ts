// Reading session log files: gzip (any number of members) or plain JSONL, auto-detected by the gzip
// magic bytes; streamed line by line through zlib so memory stays flat whatever the file size.

import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { findInvalidUtf8, utf8ProblemMessage } from '@acp-snapshot/core';
import { LogFormatError, parseLine, RowDecoder, tornTailWarning } from './codec.js';
import type { LogRecord, SessionHeader } from './events.js';

/** Whether the file starts with the gzip magic bytes (1f 8b). */
export async function isGzipFile(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await fh.read(buf, 0, 2, 0);
    return bytesRead === 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** Options for {@link streamLogRecords}. */
export interface StreamLogOptions {
  /** Called with each warning (a torn tail); default: `process.emitWarning`. */
  onWarning?: (warning: string) => void;
}

/** Bytes per read: 64 KiB measured faster than 1 MiB (lines are decoded from smaller buffers). */
const BLOCK = 1 << 16;

/**
 * The blocks of a plain file, each read issued before the previous block is handed on, so the disk
 * read (on libuv's thread pool) overlaps the decoding. Two buffers take turns: a block is only valid
 * until the next one is requested.
 */
async function* plainBlocks(path: string): AsyncGenerator<Buffer> {
  const fh = await open(path, 'r');
  const bufs = [Buffer.allocUnsafeSlow(BLOCK), Buffer.allocUnsafeSlow(BLOCK)];
  let pos = 0;
  let turn = 0;
  let next: Promise<{ bytesRead: number }> | undefined = fh.read(bufs[0]!, 0, BLOCK, pos);
  try {
    for (;;) {
      const buf = bufs[turn]!;
      const { bytesRead } = await next!;
      next = undefined;
      if (bytesRead === 0) return;
      pos += bytesRead;
      turn ^= 1;
      next = fh.read(bufs[turn]!, 0, BLOCK, pos);
      yield bytesRead === BLOCK ? buf : buf.subarray(0, bytesRead);
    }
  } finally {
    // A read still in flight (the consumer stopped early) must finish before the file is closed.
    await next?.catch(() => undefined);
    await fh.close();
  }
}

/**
 * Decodes a log file in batches of records (one batch per decompressed block). A torn tail (a
 * half-written last line, a gzip member cut short) ends the stream with a warning; a malformed
 * complete line throws LogFormatError naming file:line.
 */
export async function* readLogBatches(
  path: string,
  onWarning: (w: string) => void,
): AsyncGenerator<LogRecord[]> {
  const gzip = await isGzipFile(path);
  let source: AsyncIterable<Buffer>;
  let input: { destroy(): void } | undefined;
  if (gzip) {
    const file = createReadStream(path, { highWaterMark: BLOCK });
    const gunzip = createGunzip();
    file.on('error', (e) => gunzip.destroy(e));
    source = file.pipe(gunzip);
    input = file;
  } else {
    source = plainBlocks(path);
  }
  const dec = new RowDecoder(path);
  let pending: Buffer[] = [];
  let line = 0;
  let recovered = 0;
  let gzipProblem: string | undefined;
  try {
    for await (const raw of source) {
      const out: LogRecord[] = [];
      const last = raw.lastIndexOf(10);
      if (last !== -1) {
        // Every complete line of the block at once: one UTF-8 check and one decode of the bytes, not one
        // per line (a multi-byte character never straddles a newline byte).
        const part = raw.subarray(0, last);
        let bytes = pending.length ? Buffer.concat([...pending, part]) : part;
        pending = [];
        // Not UTF-8: the lines before the bad one are still decoded first, so the first bad line is reported.
        const bad = isUtf8(bytes) ? undefined : notUtf8(path, line, bytes);
        if (bad) bytes = bytes.subarray(0, lineOffset(bytes, bad.line - line - 1));
        const block = bytes.toString('utf8');
        let start = 0;
        for (;;) {
          const nl = block.indexOf('\n', start);
          const end = nl === -1 ? block.length : nl;
          line++;
          let text = block.slice(start, end);
          if (text.endsWith('\r')) text = text.slice(0, -1);
          if (text.trim() !== '') dec.decode(parseLine(text, path, line), line, out);
          if (nl === -1) break;
          start = nl + 1;
        }
        if (bad) throw bad;
      }
      if (last + 1 < raw.length) pending.push(Buffer.from(raw.subarray(last + 1)));
      recovered += out.length;
      if (out.length) yield out;
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (!gzip || (code !== 'Z_BUF_ERROR' && code !== 'Z_DATA_ERROR')) throw e;
    gzipProblem =
      code === 'Z_BUF_ERROR'
        ? 'the gzip data ends mid-member (the writer stopped mid-write?)'
        : `the gzip data is corrupt (${(e as Error).message})`;
  } finally {
    input?.destroy();
  }
  let tornLine = false;
  if (pending.length) {
    line++;
    const text = Buffer.concat(pending).toString('utf8');
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch {
      tornLine = true;
    }
    if (!tornLine) {
      const out: LogRecord[] = [];
      dec.decode(row, line, out);
      recovered += out.length;
      yield out;
    }
  }
  // One warning per torn tail, however many layers (gzip member, line) it cut through.
  if (gzipProblem) {
    onWarning(`${path}: torn tail: ${gzipProblem}; recovered ${recovered} records before it`);
  } else if (tornLine) {
    onWarning(tornTailWarning(path, line, recovered));
  }
  if (!dec.header) {
    throw new LogFormatError(
      `${path}: no complete session header: the log is empty or was cut before its first line ended`,
      path,
      1,
      'header',
    );
  }
}

/** The byte offset where line `n` (0-based) of `bytes` starts. */
function lineOffset(bytes: Buffer, n: number): number {
  let at = 0;
  for (let i = 0; i < n; i++) at = bytes.indexOf(10, at) + 1;
  return at;
}

/**
 * Complete lines that are not UTF-8 (the first after line `before`): corruption (an agent's JSON writer
 * never produces it), not a torn tail.
 */
function notUtf8(path: string, before: number, bytes: Buffer): LogFormatError {
  const p = findInvalidUtf8(bytes) ?? { line: 1, column: 1, byte: bytes[0] ?? 0 };
  const line = before + p.line;
  return new LogFormatError(
    utf8ProblemMessage(
      `${path}:${line}`,
      p,
      'the log was corrupted or re-encoded after it was written: restore it from version control or record it again',
    ),
    path,
    line,
  );
}

/**
 * Streams the records of a log file (header record first) in constant memory, a batch at a time:
 * the records of one read block (64 KiB of the plain or decompressed file), none empty. What
 * streamLogRecords hands out one by one, without its promise per record: for a reader that takes a
 * million records, the iteration costs as much as the decoding. Same checks and errors
 * (LogFormatError naming file:line), same torn-tail warning through `onWarning`.
 */
export function streamLogRecordBatches(
  path: string,
  opts: StreamLogOptions = {},
): AsyncGenerator<LogRecord[]> {
  return readLogBatches(path, opts.onWarning ?? defaultWarning);
}

function defaultWarning(w: string): void {
  process.emitWarning(w, 'SessionLogWarning');
}

/**
 * Streams the records of a log file (header record first) in constant memory. A hand-rolled iterator
 * over decoded batches rather than an async generator: it costs one resolved promise per record instead
 * of a generator resumption, which matters at a million records.
 */
export function streamLogRecords(
  path: string,
  opts: StreamLogOptions = {},
): AsyncIterableIterator<LogRecord> {
  const batches = streamLogRecordBatches(path, opts);
  let batch: LogRecord[] = [];
  let i = 0;
  const it: AsyncIterableIterator<LogRecord> = {
    next(): Promise<IteratorResult<LogRecord>> {
      if (i < batch.length) return Promise.resolve({ value: batch[i++]!, done: false });
      return batches.next().then((r) => {
        if (r.done) return { value: undefined, done: true };
        batch = r.value;
        i = 0;
        return it.next();
      });
    },
    async return(): Promise<IteratorResult<LogRecord>> {
      await batches.return(undefined);
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

/** Reads a whole log file (gzip or plain, auto-detected): the header, every record (header first), warnings. */
export async function readLogFile(
  path: string,
): Promise<{ header: SessionHeader; records: LogRecord[]; warnings: string[] }> {
  const warnings: string[] = [];
  const records: LogRecord[] = [];
  for await (const batch of readLogBatches(path, (w) => warnings.push(w))) {
    for (const r of batch) records.push(r);
  }
  const header = records[0]!.event as SessionHeader;
  return { header, records, warnings };
}
