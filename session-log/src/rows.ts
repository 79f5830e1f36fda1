// Storage rows: the physical layout of a session log, one JSON object a line. See README "Storage rows".
// The logical events live in events.ts; this module only says how they are laid out on disk.
import { FinishReason, type StreamChunk, Usage } from '@acp-snapshot/core';
import * as z from 'zod';
import { SessionHeader } from './events.js';

const seq = z.number().int().nonnegative();
const ts = z.number().int();
const index = z.number().int().nonnegative();
const turnOrStep = z.number().int().nonnegative();

/** The header row: the header event itself, optionally preceded by its envelope (projected fixtures drop it). */
export const HeaderRow = z.strictObject({ seq: seq.optional(), ts: ts.optional(), ...SessionHeader.shape });
export type HeaderRow = z.infer<typeof HeaderRow>;

/**
 * A single-event row: one body event with its envelope. The event is checked against the full
 * SessionEvent union by the codec (a header inside an event row is rejected there).
 */
export const EventRow = z.strictObject({
  seq: seq.optional(),
  ts: ts.optional(),
  event: z.record(z.string(), z.unknown()),
});
export type EventRow = { seq?: number; ts?: number; event: Record<string, unknown> };

/**
 * One chunk inside a packed row, as a compact tuple: a text delta is the bare string; every other
 * chunk is an array whose first element is the chunk type.
 */
export const PackedChunk = z.union([
  z.string(),
  z.tuple([z.literal('reasoning'), z.string()]),
  z.tuple([z.literal('tool_call_start'), index, z.string(), z.string()]),
  z.tuple([z.literal('tool_call_args'), index, z.string()]),
  z.tuple([z.literal('finish'), FinishReason]),
  z.tuple([z.literal('finish'), FinishReason, Usage]),
]);
export type PackedChunk = z.infer<typeof PackedChunk>;

/**
 * A packed row: a maximal run of consecutive `assistant/chunk` events of one (turn, step).
 * `seq`/`ts` are the first chunk's; the others have consecutive seqs and `dt[i]` = ms since the
 * previous chunk (so `dt` has one entry fewer than `chunks`). Projected packed rows carry no
 * `seq`, `ts` or `dt`.
 */
export const PackedRow = z.strictObject({
  seq: seq.optional(),
  ts: ts.optional(),
  turn: turnOrStep,
  step: turnOrStep,
  dt: z.array(z.number().int()).optional(),
  chunks: z.array(PackedChunk).min(1),
});
export type PackedRow = z.infer<typeof PackedRow>;

/** Any storage row. */
export type Row = HeaderRow | EventRow | PackedRow;
/** The kinds of storage rows, as named in errors and in the README. */
export type RowKind = 'header' | 'event' | 'packed';

/** The kind of a parsed JSON row, told by its distinguishing key; undefined when it is none of them. */
export function rowKindOf(row: unknown): RowKind | undefined {
  if (!row || typeof row !== 'object' || Array.isArray(row)) return undefined;
  const r = row as Record<string, unknown>;
  if (r.type === 'session/header') return 'header';
  if ('chunks' in r) return 'packed';
  if ('event' in r) return 'event';
  return undefined;
}

/** A stream chunk as its packed tuple. */
export function packChunk(chunk: StreamChunk): PackedChunk {
  switch (chunk.type) {
    case 'text':
      return chunk.text;
    case 'reasoning':
      return ['reasoning', chunk.text];
    case 'tool_call_start':
      return ['tool_call_start', chunk.index, chunk.id, chunk.name];
    case 'tool_call_args':
      return ['tool_call_args', chunk.index, chunk.delta];
    case 'finish':
      return chunk.usage ? ['finish', chunk.reason, Usage.parse(chunk.usage)] : ['finish', chunk.reason];
  }
}

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * A packed tuple as its stream chunk, or undefined when the tuple is malformed (the caller then
 * re-checks the row with zod to report the exact issue). Hand-written because it runs for every chunk
 * of a log and must keep decoding above a million events a second; it accepts exactly what PackedChunk does.
 */
export function unpackChunk(c: unknown): StreamChunk | undefined {
  if (typeof c === 'string') return { type: 'text', text: c };
  if (!Array.isArray(c)) return undefined;
  switch (c[0]) {
    case 'reasoning':
      return c.length === 2 && typeof c[1] === 'string' ? { type: 'reasoning', text: c[1] } : undefined;
    case 'tool_call_start':
      return c.length === 4 && isIndex(c[1]) && typeof c[2] === 'string' && typeof c[3] === 'string'
        ? { type: 'tool_call_start', index: c[1], id: c[2], name: c[3] }
        : undefined;
    case 'tool_call_args':
      return c.length === 3 && isIndex(c[1]) && typeof c[2] === 'string'
        ? { type: 'tool_call_args', index: c[1], delta: c[2] }
        : undefined;
    case 'finish': {
      const reason = FinishReason.safeParse(c[1]);
      if (!reason.success) return undefined;
      if (c.length === 2) return { type: 'finish', reason: reason.data };
      if (c.length !== 3) return undefined;
      const usage = Usage.safeParse(c[2]);
      return usage.success ? { type: 'finish', reason: reason.data, usage: usage.data } : undefined;
    }
    default:
      return undefined;
  }
}
