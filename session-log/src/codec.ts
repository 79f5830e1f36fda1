// The codec: logical records <-> storage rows <-> JSONL text. Pure: no files, no I/O policy.
// One canonical form (see README "Canonical form"): maximal packing of chunk runs, fixed key order.
import {
  CLIP_LENGTH,
  clipText,
  formatIssuePath,
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  quoteValue,
  StreamChunk,
} from '@acp-snapshot/core';
import type { z } from 'zod';
import { LOG_FORMAT, LOG_FORMAT_VERSION, type LogRecord, SessionEvent, SessionHeader } from './events.js';
import {
  EventRow,
  HeaderRow,
  type PackedChunk,
  PackedRow,
  packChunk,
  type Row,
  type RowKind,
  rowKindOf,
  unpackChunk,
} from './rows.js';

// The row formats are in session-log/README.md; a user of the published package does not have it, and the
// message already names the file, line, row kind and field.
const FIX_HINT =
  'The log is corrupt or was edited by hand: fix or remove that line, or re-record the session';

/** A session log that cannot be read: names the file and line, the row kind and the offending field. */
export class LogFormatError extends Error {
  override readonly name = 'LogFormatError';
  constructor(
    message: string,
    /** The file (or `<text>` / `<rows>`) the bad row came from. */
    readonly file: string,
    /** 1-based line number of the bad row. */
    readonly line: number,
    /** The row kind, when it could be told. */
    readonly rowKind?: RowKind,
    /** The path of the offending field inside the row (`chunks[3]`, `event.turn`), when known. */
    readonly path?: string,
  ) {
    super(message);
  }
}

function formatError(
  file: string,
  line: number,
  kind: RowKind | undefined,
  path: string,
  problem: string,
  hint = FIX_HINT,
): LogFormatError {
  const what = kind ? `${kind} row` : 'row';
  // Paths and problems may quote the row (an unknown key, a wrong format string): clip hostile sizes.
  const at = clipText(path);
  return new LogFormatError(
    `${file}:${line}: bad ${what} at ${at}: ${clipText(problem, 2 * CLIP_LENGTH)}. ${hint}`,
    file,
    line,
    kind,
    at,
  );
}

function zodError(
  file: string,
  line: number,
  kind: RowKind,
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
): LogFormatError {
  const issue = error.issues[0]!;
  return formatError(file, line, kind, formatIssuePath([...prefix, ...issue.path]), issue.message);
}

// ---------------------------------------------------------------------------------------------
// Encoding

function envelopeOf(r: LogRecord, i: number): { seq?: number; ts?: number } {
  const out: { seq?: number; ts?: number } = {};
  if (r.seq !== undefined) {
    if (!Number.isSafeInteger(r.seq) || r.seq < 0) {
      throw new Error(`cannot encode record #${i}: seq must be a non-negative integer, got ${r.seq}`);
    }
    out.seq = r.seq;
  }
  if (r.ts !== undefined) {
    if (!Number.isSafeInteger(r.ts)) {
      throw new Error(`cannot encode record #${i}: ts must be integer milliseconds, got ${r.ts}`);
    }
    out.ts = r.ts;
  }
  return out;
}

function checked<T>(schema: z.ZodType<T>, value: unknown, i: number, what: string): T {
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  const issue = res.error.issues[0]!;
  throw new Error(`cannot encode record #${i} (${what}): ${formatIssuePath(issue.path)}: ${issue.message}`);
}

/** Whether a record can join the packed run whose last record is `prev`. */
function continuesRun(prev: LogRecord, next: LogRecord): boolean {
  const a = prev.event;
  const b = next.event;
  if (b.type !== 'assistant/chunk' || a.type !== 'assistant/chunk') return false;
  if (a.turn !== b.turn || a.step !== b.step) return false;
  if (prev.seq === undefined) return next.seq === undefined && next.ts === undefined;
  return next.seq === prev.seq + 1 && next.ts !== undefined;
}

/** A chunk record can open a packed run when it has a full envelope (seq and ts) or none. */
function packable(r: LogRecord): boolean {
  return (r.seq === undefined) === (r.ts === undefined);
}

/**
 * Records -> canonical rows: the header row first, then every maximal run of consecutive
 * `assistant/chunk` events of one (turn, step) (consecutive seqs, all with or all without envelope)
 * as one packed row, everything else as single-event rows. Events are validated and written in
 * schema key order. Throws on an invalid record, naming its index.
 */
export function encodeRows(records: readonly LogRecord[]): Row[] {
  const rows: Row[] = [];
  if (records.length === 0) return rows;
  if (records[0]!.event.type !== 'session/header') {
    throw new Error(
      `cannot encode: the first record must be the session header, got ${records[0]!.event.type}`,
    );
  }
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const e = r.event;
    if (e.type === 'session/header') {
      if (i !== 0) throw new Error(`cannot encode record #${i}: a second session header`);
      rows.push(encodeSingleRow(r, i));
      continue;
    }
    if (e.type === 'assistant/chunk' && packable(r)) {
      const env = envelopeOf(r, i);
      const chunks: PackedChunk[] = [];
      const dt: number[] = [];
      let j = i;
      for (;;) {
        const cur = records[j]!;
        const ev = cur.event as Extract<typeof e, { type: 'assistant/chunk' }>;
        const packed = packChunk(ev.chunk);
        if (unpackChunk(packed) === undefined) checked(StreamChunk, ev.chunk, j, 'assistant/chunk');
        chunks.push(packed);
        if (j > i) {
          envelopeOf(cur, j);
          dt.push(cur.ts! - records[j - 1]!.ts!);
        }
        const next = records[j + 1];
        if (!next || !continuesRun(cur, next)) break;
        j++;
      }
      if (!isNat(e.turn) || !isNat(e.step)) checked(SessionEvent, e, i, e.type);
      const row: PackedRow =
        env.seq === undefined
          ? { turn: e.turn, step: e.step, chunks }
          : { seq: env.seq, ts: env.ts!, turn: e.turn, step: e.step, dt, chunks };
      rows.push(row);
      i = j;
      continue;
    }
    rows.push(encodeSingleRow(r, i));
  }
  return rows;
}

/**
 * One record as a header row or a single-event row (never packed: the live appender writes these).
 * Validates the event; `i` names the record in errors.
 */
export function encodeSingleRow(r: LogRecord, i = 0): Row {
  const e = r.event;
  if (e.type === 'session/header') return { ...envelopeOf(r, i), ...checked(SessionHeader, e, i, e.type) };
  return { ...envelopeOf(r, i), event: checked(SessionEvent, e, i, e.type) as Record<string, unknown> };
}

/** Canonical JSONL text of records: one row a line, each line ending in a newline. */
export function serializeLog(records: readonly LogRecord[]): string {
  const rows = encodeRows(records);
  let out = '';
  for (const row of rows) out += `${JSON.stringify(row)}\n`;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Decoding

/**
 * Decodes rows one at a time, checking that the first is a header of this format and version.
 * Shared by decodeRows, parseLogText and the streaming reader.
 */
export class RowDecoder {
  private rowsSeen = 0;
  /** The header, once the first row was decoded. */
  header: SessionHeader | undefined;

  constructor(readonly file: string) {}

  /** Decodes one parsed row (from line `line`), appending its records to `out`. */
  decode(row: unknown, line: number, out: LogRecord[]): void {
    const kind = rowKindOf(row);
    const first = this.rowsSeen++ === 0;
    if (first) {
      this.decodeHeader(row, line, out);
      return;
    }
    switch (kind) {
      case 'packed':
        this.decodePacked(row as Record<string, unknown>, line, out);
        return;
      case 'event':
        this.decodeEvent(row, line, out);
        return;
      case 'header':
        throw formatError(
          this.file,
          line,
          'header',
          'type',
          'a second session header (only the first row may be one)',
        );
      default:
        throw formatError(
          this.file,
          line,
          undefined,
          '(row)',
          'not a session log row (expected an object with "event" or "chunks")',
        );
    }
  }

  private decodeHeader(row: unknown, line: number, out: LogRecord[]): void {
    const r = row as Record<string, unknown> | undefined;
    if (rowKindOf(row) !== 'header') {
      throw formatError(
        this.file,
        line,
        rowKindOf(row),
        'type',
        'the first row must be the session header ("type":"session/header")',
        'Is this an acp-snapshot session log? Its first line must be the header row',
      );
    }
    if (r!.format !== LOG_FORMAT) {
      throw formatError(
        this.file,
        line,
        'header',
        'format',
        `format is ${quoteValue(r!.format)}, expected "${LOG_FORMAT}"`,
        'This is not an acp-snapshot session log',
      );
    }
    if (r!.version !== LOG_FORMAT_VERSION) {
      throw formatError(
        this.file,
        line,
        'header',
        'version',
        `format version ${quoteValue(r!.version)} is not the version this reader understands (${LOG_FORMAT_VERSION})`,
        'Read it with the @acp-snapshot/session-log release that wrote it, or re-record the session',
      );
    }
    // The header holds free-form JSON (config, tool parameters): a log that nests deeper could be read but
    // never written back (serializing overflows the stack).
    if (nestsDeeperThan(row)) {
      throw formatError(
        this.file,
        line,
        'header',
        '(row)',
        `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    const res = HeaderRow.safeParse(row);
    if (!res.success) throw zodError(this.file, line, 'header', res.error);
    const { seq, ts, ...header } = res.data;
    this.header = header;
    out.push(record(seq, ts, header));
  }

  private decodeEvent(row: unknown, line: number, out: LogRecord[]): void {
    // The envelope is hand-checked (zod's record check of the event copied every event's keys, a tenth of
    // decoding); a row it does not accept is re-checked with zod for the exact issue.
    const r = row as Record<string, unknown>;
    if (!isEventEnvelope(r)) {
      const res = EventRow.safeParse(row);
      if (!res.success) throw zodError(this.file, line, 'event', res.error);
    }
    const ev = SessionEvent.safeParse(r.event);
    if (!ev.success) throw zodError(this.file, line, 'event', ev.error, ['event']);
    if (ev.data.type === 'session/header') {
      throw formatError(this.file, line, 'event', 'event.type', 'a session header inside an event row');
    }
    out.push(record(r.seq as number | undefined, r.ts as number | undefined, ev.data));
  }

  private decodePacked(r: Record<string, unknown>, line: number, out: LogRecord[]): void {
    // Fast path: hand-checked, because packed rows hold nearly every event of a log. Anything it
    // does not accept is re-checked with zod for the exact issue.
    const { seq, ts, turn, step, dt, chunks } = r;
    // Zod first (the exact issue of a malformed row), else the envelope rule zod cannot express.
    const fail = (path = '(row)', problem = 'malformed packed row'): never => {
      const res = PackedRow.safeParse(r);
      if (!res.success) throw zodError(this.file, line, 'packed', res.error);
      throw formatError(this.file, line, 'packed', path, problem);
    };
    let keys = 0;
    for (const _ in r) keys++;
    const hasEnv = seq !== undefined;
    if (hasEnv !== (ts !== undefined)) fail(hasEnv ? 'ts' : 'seq', 'seq and ts come together');
    if (hasEnv !== (dt !== undefined))
      fail('dt', hasEnv ? 'a packed row with seq/ts needs dt' : 'dt without seq/ts');
    if (keys !== (hasEnv ? 6 : 3)) fail();
    if (!Array.isArray(chunks) || chunks.length === 0 || !isNat(turn) || !isNat(step)) fail();
    const cs = chunks as unknown[];
    const n = cs.length;
    let s = 0;
    let t = 0;
    let d: unknown[] = [];
    if (hasEnv) {
      if (!isNat(seq) || !Number.isSafeInteger(ts) || !Array.isArray(dt)) fail();
      d = dt as unknown[];
      if (d.length !== n - 1) fail('dt', `has ${d.length} entries for ${n} chunks (expected ${n - 1})`);
      s = seq as number;
      t = ts as number;
    }
    const tn = turn as number;
    const sn = step as number;
    for (let i = 0; i < n; i++) {
      const chunk = unpackChunk(cs[i]);
      if (chunk === undefined) fail();
      const event = { type: 'assistant/chunk' as const, turn: tn, step: sn, chunk: chunk! };
      if (hasEnv) {
        if (i > 0) {
          const delta = d[i - 1];
          if (typeof delta !== 'number' || !Number.isSafeInteger(delta)) fail();
          t += delta as number;
        }
        out.push({ seq: s + i, ts: t, event });
      } else {
        out.push({ event });
      }
    }
  }
}

/** A record with keys in envelope order (seq, ts, event), absent envelope fields omitted. */
function record(seq: number | undefined, ts: number | undefined, event: SessionEvent): LogRecord {
  if (seq !== undefined && ts !== undefined) return { seq, ts, event };
  if (seq !== undefined) return { seq, event };
  if (ts !== undefined) return { ts, event };
  return { event };
}

/** What EventRow accepts (strict keys seq?, ts?, event; a plain-object event), without zod's copy of the event. */
function isEventEnvelope(r: Record<string, unknown>): boolean {
  for (const k in r) if (k !== 'seq' && k !== 'ts' && k !== 'event') return false;
  const { seq, ts, event } = r;
  if (seq !== undefined && !isNat(seq)) return false;
  if (ts !== undefined && !Number.isSafeInteger(ts)) return false;
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return false;
  const proto = Object.getPrototypeOf(event);
  return proto === Object.prototype || proto === null;
}

function isNat(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Rows -> records. Throws LogFormatError naming the row (`<rows>:N`, 1-based), its kind and the field. */
export function decodeRows(rows: readonly unknown[], file = '<rows>'): LogRecord[] {
  const dec = new RowDecoder(file);
  const out: LogRecord[] = [];
  for (let i = 0; i < rows.length; i++) dec.decode(rows[i], i + 1, out);
  return out;
}

/** Parses one line of a log file into a row; a line that is not JSON fails with file:line. */
export function parseLine(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw formatError(file, line, undefined, '(row)', `not valid JSON (${(e as Error).message})`);
  }
}

/** The warning for a log whose last line was cut short. */
export function tornTailWarning(file: string, line: number, recovered: number): string {
  return (
    `${file}:${line}: torn tail: the last line is incomplete (the writer stopped mid-write?); ` +
    `recovered ${recovered} records before it`
  );
}

/**
 * Parses a whole log text (plain JSONL). A malformed line throws LogFormatError (file:line, row kind,
 * field path); a half-written last line (no newline, not JSON) is dropped with a warning instead.
 */
export function parseLogText(text: string, file = '<text>'): { records: LogRecord[]; warnings: string[] } {
  const dec = new RowDecoder(file);
  const records: LogRecord[] = [];
  const warnings: string[] = [];
  let start = 0;
  let line = 0;
  while (start < text.length) {
    line++;
    let end = text.indexOf('\n', start);
    const terminated = end !== -1;
    if (!terminated) end = text.length;
    let body = text.slice(start, end);
    start = end + 1;
    if (body.endsWith('\r')) body = body.slice(0, -1);
    if (body.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(body);
    } catch (e) {
      if (!terminated) {
        warnings.push(tornTailWarning(file, line, records.length));
        break;
      }
      throw formatError(file, line, undefined, '(row)', `not valid JSON (${(e as Error).message})`);
    }
    dec.decode(row, line, records);
  }
  if (!dec.header) {
    throw new LogFormatError(
      `${file}: no complete session header: the log is empty or was cut before its first line ended`,
      file,
      1,
      'header',
    );
  }
  return { records, warnings };
}
