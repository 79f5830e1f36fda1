import { cutText } from '@acp-snapshot/core';
import { type LogRecord, readLogFile } from '@acp-snapshot/session-log';
import { type ListSessionsResponse, RequestError, type SessionInfo } from '@agentclientprotocol/sdk';

/** Longest session title, in UTF-16 code units (cut at a grapheme boundary). */
const TITLE_CHARS = 80;

/** What `session/list` reports of one persisted session, read from its log. */
export function sessionInfo(records: readonly LogRecord[]): SessionInfo | undefined {
  const header = records[0]?.event;
  if (header?.type !== 'session/header') return undefined;
  const info: SessionInfo = { sessionId: header.sessionId, cwd: header.cwd };
  const title = titleOf(records);
  if (title) info.title = title;
  let last: number | undefined;
  for (const r of records) if (r.ts !== undefined && (last === undefined || r.ts > last)) last = r.ts;
  if (last !== undefined) info.updatedAt = new Date(last).toISOString();
  return info;
}

/** The session's title: the first line of its first user message, cut to {@link TITLE_CHARS}. */
function titleOf(records: readonly LogRecord[]): string | undefined {
  for (const { event } of records) {
    if (event.type !== 'message/committed' || event.message.role !== 'user') continue;
    const line = event.message.content.trim().split('\n')[0]!.trim();
    if (line === '') return undefined;
    const cut = cutText(line, TITLE_CHARS - 1);
    return cut.length < line.length ? `${cut}…` : line;
  }
  return undefined;
}

/** Newest first, then by id, so pages are stable while nothing changes. */
function order(a: SessionInfo, b: SessionInfo): number {
  const ua = a.updatedAt ?? '';
  const ub = b.updatedAt ?? '';
  if (ua !== ub) return ua < ub ? 1 : -1;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}

/** The position a cursor stands for: the sort key of the last session of the previous page. */
interface CursorKey {
  updatedAt: string;
  sessionId: string;
}

/**
 * Cursors are opaque to clients, but readable here on purpose: `<updatedAt>/<sessionId>` of the last
 * session of the page. A snapshot of a listing then normalizes the time and the id inside it like any
 * other, instead of pinning bytes that change with every clock reading.
 */
function encodeCursor(s: SessionInfo): string {
  return `${s.updatedAt ?? ''}/${s.sessionId}`;
}

function decodeCursor(cursor: string): CursorKey {
  const slash = cursor.lastIndexOf('/');
  const updatedAt = cursor.slice(0, slash);
  const sessionId = cursor.slice(slash + 1);
  if (slash >= 0 && sessionId !== '' && (updatedAt === '' || !Number.isNaN(Date.parse(updatedAt))))
    return { updatedAt, sessionId };
  throw RequestError.invalidParams(
    { cursor },
    'cursor is not one this agent returned; pass the nextCursor of the previous session/list response unchanged, or leave cursor out for the first page',
  );
}

/** Options of one `session/list` request. */
export interface ListOptions {
  cwd?: string | null | undefined;
  cursor?: string | null | undefined;
  pageSize: number;
}

/**
 * One page of the sessions whose logs are in `logs`, newest first, optionally only those of one cwd.
 * A log that cannot be read is left out and reported through `log` (a listing never fails on one bad file).
 */
export async function listSessions(
  logs: readonly string[],
  opts: ListOptions,
  log: (line: string) => void,
): Promise<ListSessionsResponse> {
  const all: SessionInfo[] = [];
  for (const path of logs) {
    try {
      // A live session's log may end in a half-written row: the complete records are what it has so far.
      const info = sessionInfo((await readLogFile(path)).records);
      if (info && (opts.cwd == null || info.cwd === opts.cwd)) all.push(info);
    } catch (e) {
      log(`session/list: leaving out ${path}: ${(e as Error).message}`);
    }
  }
  all.sort(order);
  let start = 0;
  if (opts.cursor != null) {
    const key = decodeCursor(opts.cursor);
    const probe: SessionInfo = { sessionId: key.sessionId, cwd: '', updatedAt: key.updatedAt };
    start = all.findIndex((s) => order(s, probe) > 0);
    if (start === -1) start = all.length;
  }
  const sessions = all.slice(start, start + opts.pageSize);
  const more = start + opts.pageSize < all.length;
  return more ? { sessions, nextCursor: encodeCursor(sessions.at(-1)!) } : { sessions };
}
