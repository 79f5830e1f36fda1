// The live appender: durable per event. Each appended event is one single-event row; with gzip each
// row is its own gzip member, so every acknowledged event decodes on its own and a torn tail loses at
// most the event being written. On close the file is compacted into the canonical packed form
// (atomic replace). Decision and trade-offs: docs/decisions/0001-session-log-rows.md.
import { existsSync, statSync } from 'node:fs';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { encodeSingleRow, serializeLog } from './codec.js';
import type { LogRecord, SessionEvent } from './events.js';
import { isGzipFile, readLogBatches, readLogFile } from './reader.js';

/** How a log file is stored. */
export type LogCompression = 'gzip' | 'none';

/** Where the appender's bytes go: owns the file and its fsync. */
export interface LogSink {
  /** Appends bytes; resolves when they are written (and synced, per the sink's policy). */
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** When the file sink calls fsync: after every event (default), or only at close. */
export type SyncPolicy = 'every-event' | 'on-close';

/** An append-only file; `fdatasync` after each write unless the policy is 'on-close'. */
export class FileSink implements LogSink {
  private constructor(
    private readonly fh: FileHandle,
    private readonly sync: SyncPolicy,
  ) {}

  static async open(path: string, sync: SyncPolicy = 'every-event'): Promise<FileSink> {
    const fh = await open(path, 'a');
    if (sync === 'every-event') await syncDir(dirname(path));
    return new FileSink(fh, sync);
  }

  async write(bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) {
      const { bytesWritten } = await this.fh.write(bytes, off, bytes.length - off);
      off += bytesWritten;
    }
    if (this.sync === 'every-event') await this.fh.datasync();
  }

  async close(): Promise<void> {
    if (this.sync === 'on-close') await this.fh.datasync();
    await this.fh.close();
  }
}

/** fsync a directory so a created or renamed entry survives a crash (not supported everywhere). */
async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Some platforms cannot open or sync directories; the file data itself is still synced.
  } finally {
    await fh?.close();
  }
}

/** A session log open for appending. */
export interface LogAppender {
  /** Appends one event with its time; durable when the promise resolves. The header comes first in a new file. */
  append(event: SessionEvent, ts: number): Promise<void>;
  /** The seq the next appended event gets. */
  readonly nextSeq: number;
  /** Where the log is. */
  readonly path: string;
  /** Flushes, closes and compacts the file into canonical packed rows. */
  close(): Promise<void>;
}

/** Options for {@link openLogAppender}. */
export interface LogAppenderOptions {
  /** gzip (default) or plain JSONL. An existing file must match (its compression is detected). */
  compression?: LogCompression;
  /** fsync policy; default 'every-event'. */
  sync?: SyncPolicy;
  /** Rewrite the file into canonical packed rows at close (default true). */
  compactOnClose?: boolean;
}

/** The bytes of one row as written live: a line, or a gzip member holding the line. */
function frame(line: string, compression: LogCompression): Uint8Array {
  return compression === 'gzip' ? gzipSync(line) : Buffer.from(line);
}

/** Atomically replaces `path` with the canonical form of `records` (temp file, fsync, rename, dir fsync). */
export async function writeLogFileAtomic(
  path: string,
  records: readonly LogRecord[],
  compression: LogCompression,
): Promise<void> {
  const text = serializeLog(records);
  const bytes = compression === 'gzip' ? gzipSync(text) : Buffer.from(text);
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  await rename(tmp, path);
  await syncDir(dirname(path));
}

class Appender implements LogAppender {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private wrote = false;

  constructor(
    readonly path: string,
    private readonly sink: LogSink,
    private readonly compression: LogCompression,
    private hasHeader: boolean,
    public nextSeq: number,
    private readonly compact: boolean,
  ) {}

  append(event: SessionEvent, ts: number): Promise<void> {
    if (this.closed)
      return Promise.reject(new Error(`${this.path}: appender is closed; cannot append ${event.type}`));
    const run = async () => {
      const isHeader = event.type === 'session/header';
      if (!this.hasHeader && !isHeader) {
        throw new Error(
          `${this.path}: the first event of a new log must be the session header, got ${event.type}`,
        );
      }
      if (this.hasHeader && isHeader) throw new Error(`${this.path}: the log already has a session header`);
      const record: LogRecord = { seq: this.nextSeq, ts, event };
      // Single-event rows only: a live chunk run cannot be packed retroactively in an append-only file.
      const line = `${JSON.stringify(encodeSingleRow(record))}\n`;
      await this.sink.write(frame(line, this.compression));
      this.hasHeader = true;
      this.nextSeq++;
      this.wrote = true;
    };
    const p = this.queue.then(run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.sink.close();
    if (!this.compact || !this.wrote) return;
    const { records, warnings } = await readLogFile(this.path);
    // Never rewrite what we cannot read completely: leave the journal as it is.
    if (warnings.length === 0) await writeLogFileAtomic(this.path, records, this.compression);
  }
}

/**
 * Opens a log for appending. A new file gets the header as its first appended event. An existing file
 * is read first: appending resumes at the seq after its last complete record, and a torn tail left by
 * a crash is cut off (the file is rewritten without it) so new rows never follow half a row.
 */
export async function openLogAppender(path: string, opts: LogAppenderOptions = {}): Promise<LogAppender> {
  const sync = opts.sync ?? 'every-event';
  const compact = opts.compactOnClose ?? true;
  let compression: LogCompression = opts.compression ?? 'gzip';
  let hasHeader = false;
  let nextSeq = 0;
  if (existsSync(path) && statSync(path).size > 0) {
    const detected: LogCompression = (await isGzipFile(path)) ? 'gzip' : 'none';
    if (opts.compression && opts.compression !== detected) {
      throw new Error(
        `${path}: the existing log is ${detected === 'gzip' ? 'gzip-compressed' : 'plain JSONL'} but compression ` +
          `'${opts.compression}' was asked; open it with compression '${detected}'`,
      );
    }
    compression = detected;
    // Streamed: only the last seq is needed, unless a torn tail has to be cut off.
    const warnings: string[] = [];
    let count = 0;
    let last = -1;
    for await (const batch of readLogBatches(path, (w) => warnings.push(w))) {
      for (const r of batch) if (r.seq !== undefined && r.seq > last) last = r.seq;
      count += batch.length;
    }
    hasHeader = true;
    nextSeq = last >= 0 ? last + 1 : count;
    if (warnings.length > 0) {
      const { records } = await readLogFile(path);
      await writeLogFileAtomic(path, records, compression);
    }
  }
  const sink = await FileSink.open(path, sync);
  return new Appender(path, sink, compression, hasHeader, nextSeq, compact);
}
