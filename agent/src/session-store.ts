import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type LogAppender,
  type LogRecord,
  openLogAppender,
  readLogFile,
  type SessionEvent,
  type SessionHeader,
} from '@acp-snapshot/session-log';
import type { Clock, IdGenerator } from './seams.js';

/** Where session logs live and how they are written: `<root>/<sessionId>.jsonl` or `.jsonl.gz`. */
export class SessionStore {
  constructor(
    readonly root: string,
    readonly compression: 'gzip' | 'none',
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  private pathFor(sessionId: string, compression: 'gzip' | 'none'): string {
    return join(this.root, `${sessionId}.jsonl${compression === 'gzip' ? '.gz' : ''}`);
  }

  /** The existing log of a session (either compression), or undefined. */
  findLog(sessionId: string): { path: string; compression: 'gzip' | 'none' } | undefined {
    // A client's session id becomes a file name: one that could leave the root names no session.
    if (!isFileNameId(sessionId)) return undefined;
    for (const compression of [this.compression, this.compression === 'gzip' ? 'none' : 'gzip'] as const) {
      const path = this.pathFor(sessionId, compression);
      if (existsSync(path)) return { path, compression };
    }
    return undefined;
  }

  /** The log files of every persisted session under the root (one per session id), sorted by name. */
  async logFiles(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const ids = new Set<string>();
    for (const n of names) {
      const m = /^(.+)\.jsonl(?:\.gz)?$/.exec(n);
      if (m) ids.add(m[1]!);
    }
    return [...ids].sort().flatMap((id) => {
      const found = this.findLog(id);
      return found ? [found.path] : [];
    });
  }

  /** Removes a session's log (either compression); a session without one is left as it is. */
  async delete(sessionId: string): Promise<boolean> {
    let removed = false;
    for (;;) {
      const found = this.findLog(sessionId);
      if (!found) return removed;
      await rm(found.path, { force: true });
      removed = true;
    }
  }

  /**
   * A fresh session id. Counter ids restart in every process, so ids whose log already exists under the
   * root are skipped: a second agent process never appends to a session it did not create or load.
   */
  newSessionId(): string {
    for (;;) {
      const id = this.ids.next('sess');
      if (!this.findLog(id)) return id;
    }
  }

  /** Creates the log of a new session, writing its header. */
  async create(header: SessionHeader): Promise<SessionWriter> {
    await mkdir(this.root, { recursive: true });
    const appender = await openLogAppender(this.pathFor(header.sessionId, this.compression), {
      compression: this.compression,
    });
    const writer = new SessionWriter(appender, this.clock);
    await writer.write(header);
    return writer;
  }

  /** Reads a persisted session and opens it for appending in its existing compression. */
  async open(sessionId: string): Promise<{
    header: SessionHeader;
    records: LogRecord[];
    warnings: string[];
    writer: SessionWriter;
    path: string;
  }> {
    const found = this.findLog(sessionId);
    if (!found) throw new Error(`no session log for ${sessionId} under ${this.root}`);
    const { header, records, warnings } = await readLogFile(found.path);
    const appender = await openLogAppender(found.path, { compression: found.compression });
    return { header, records, warnings, writer: new SessionWriter(appender, this.clock), path: found.path };
  }
}

/** Whether a session id is usable as a file name inside the root (no separators, not `.` or `..`). */
function isFileNameId(id: string): boolean {
  return id !== '' && id !== '.' && id !== '..' && !/[/\\\0]/.test(id);
}

/** Appends events to one session log, time-stamped by the injected clock; durable when write resolves. */
export class SessionWriter {
  private closed = false;

  constructor(
    private readonly appender: LogAppender,
    private readonly clock: Clock,
  ) {}

  async write(event: SessionEvent): Promise<void> {
    if (this.closed) throw new Error(`session log already closed; cannot append ${event.type}`);
    await this.appender.append(event, this.clock.now());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.appender.close();
  }
}
