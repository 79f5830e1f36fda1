import { hydrateText, type RootReplacer, type VolatileRoots } from '@acp-snapshot/core';
/**
 * Response frames: the body of a model answer as the list of byte runs replay writes one by one.
 * A stream (`text/event-stream`) is cut after each event's blank line, so a recording does not depend on
 * how TCP happened to segment it; `received` keeps the reads exactly as they arrived instead. Bytes are
 * never changed, except that this run's roots become placeholders in the committed frames and are
 * hydrated back at replay, with core's slice rule for a path streamed in pieces.
 */

/** One write of a response body: UTF-8 text, or base64 when the bytes are not UTF-8 on their own. */
export type Frame = ({ text: string } | { base64: string }) & {
  /** Milliseconds from the request's arrival to this frame's last byte (kept with `timing: 'recorded'`). */
  atMs?: number;
};

/** How a recorded body is cut into frames: at SSE event ends (default), or as the reads arrived. */
export type Framing = 'events' | 'received';

/** A read of the upstream body and when it arrived. */
export interface Received {
  bytes: Uint8Array;
  atMs: number;
}

/** The frame of some bytes: text when they are UTF-8 (and round-trip exactly), else base64. */
export function toFrame(bytes: Uint8Array, atMs?: number): Frame {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('utf8');
  const frame: Frame =
    Buffer.byteLength(text) === buf.length && Buffer.from(text).equals(buf)
      ? { text }
      : { base64: buf.toString('base64') };
  if (atMs !== undefined) frame.atMs = atMs;
  return frame;
}

/** The bytes of a frame. */
export function frameBytes(frame: Frame): Buffer {
  return 'text' in frame ? Buffer.from(frame.text, 'utf8') : Buffer.from(frame.base64, 'base64');
}

/**
 * Offsets just past each SSE event (the line terminator that ends its blank line). Terminators are
 * CRLF, LF or CR, as the SSE spec reads them; bytes after the last event end form a last run.
 */
export function eventEnds(body: Uint8Array): number[] {
  const ends: number[] = [];
  let lineEmpty = true;
  for (let i = 0; i < body.length; i++) {
    const b = body[i];
    if (b !== 10 && b !== 13) {
      lineEmpty = false;
      continue;
    }
    if (b === 13 && body[i + 1] === 10) i++;
    if (lineEmpty) ends.push(i + 1);
    lineEmpty = true;
  }
  if (ends[ends.length - 1] !== body.length && body.length > 0) ends.push(body.length);
  return ends;
}

/** The frames of a received body: cut at event ends for a stream, as received, or whole. */
export function cutFrames(
  reads: readonly Received[],
  framing: Framing,
  stream: boolean,
  timing: boolean,
): Frame[] {
  if (framing === 'received') return reads.map((r) => toFrame(r.bytes, timing ? r.atMs : undefined));
  const body = Buffer.concat(reads.map((r) => r.bytes));
  if (body.length === 0) return [];
  const ends = stream ? eventEnds(body) : [body.length];
  // The arrival time of a frame is that of the read holding its last byte.
  const readEnds: number[] = [];
  let total = 0;
  for (const r of reads) {
    total += r.bytes.length;
    readEnds.push(total);
  }
  const frames: Frame[] = [];
  let start = 0;
  let k = 0;
  for (const end of ends) {
    while (readEnds[k]! < end) k++;
    frames.push(toFrame(body.subarray(start, end), timing ? reads[k]!.atMs : undefined));
    start = end;
  }
  return frames;
}

interface Segment {
  frame: number;
  /** Offset of the JSON text (a `data:` value, or the whole frame) in the frame's text. */
  at: number;
  raw: string;
  leaves: string[];
  /** The JSON path of each leaf: leaves at one path across frames are one streamed text. */
  paths: string[];
}

function leavesOf(value: unknown, path: string, out: string[], paths: string[]): void {
  if (typeof value === 'string') {
    out.push(value);
    paths.push(path);
  } else if (Array.isArray(value))
    for (const [i, v] of value.entries()) leavesOf(v, `${path}[${i}]`, out, paths);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) leavesOf(v, `${path}.${k}`, out, paths);
}

function jsonSegments(texts: readonly (string | undefined)[]): Segment[] {
  const out: Segment[] = [];
  texts.forEach((text, frame) => {
    if (text === undefined) return;
    const parse = (raw: string, at: number) => {
      try {
        const leaves: string[] = [];
        const paths: string[] = [];
        leavesOf(JSON.parse(raw), '', leaves, paths);
        out.push({ frame, at, raw, leaves, paths });
      } catch {
        out.push({ frame, at, raw, leaves: [raw], paths: ['(text)'] });
      }
    };
    const data = /^data: ?(.*)$/gm;
    let m: RegExpExecArray | null = data.exec(text);
    if (!m) parse(text, 0);
    for (; m; m = data.exec(text)) parse(m[1]!.replace(/\r$/, ''), m.index + m[0].length - m[1]!.length);
  });
  return out;
}

/** `raw` with each leaf's JSON spelling replaced by its new value's, in document order; undefined when lost. */
function rewrite(raw: string, before: string[], after: string[], isJson: boolean): string | undefined {
  let out = '';
  let cursor = 0;
  for (let i = 0; i < before.length; i++) {
    if (!isJson) {
      const at = raw.indexOf(before[i]!, cursor);
      if (at < 0) return undefined;
      out += raw.slice(cursor, at) + after[i]!;
      cursor = at + before[i]!.length;
      continue;
    }
    // The value as a whole JSON string, quotes included: a one-letter piece of a path ("t" of "/tmp") must
    // not be found inside a key (`"text":`) or another value. A quoted text followed by `:` is a key.
    const old = JSON.stringify(before[i]);
    let at = raw.indexOf(old, cursor);
    while (at >= 0 && /^\s*:/.test(raw.slice(at + old.length, at + old.length + 8)))
      at = raw.indexOf(old, at + 1);
    if (at < 0) return undefined;
    out += raw.slice(cursor, at) + JSON.stringify(after[i]);
    cursor = at + old.length;
  }
  return out + raw.slice(cursor);
}

/**
 * The frames with this run's roots replaced by placeholders. The string values at one JSON path of the
 * payloads (SSE `data:` lines, or a whole JSON body), such as `choices[0].delta.content` of every event,
 * are matched as one text across frames, so a path the model streamed over several events gets slice
 * placeholders; the raw spelling around them is kept.
 */
export function scrubFrames(frames: readonly Frame[], replacer: RootReplacer): Frame[] {
  if (replacer.empty) return [...frames];
  const texts = frames.map((f) => ('text' in f ? f.text : undefined));
  const segments = jsonSegments(texts);
  const before = segments.flatMap((s) => s.leaves);
  const paths = segments.flatMap((s) => s.paths);
  const groups = new Map<string, number[]>();
  for (const [i, p] of paths.entries()) {
    const group = groups.get(p);
    if (group) group.push(i);
    else groups.set(p, [i]);
  }
  const after = [...before];
  for (const indices of groups.values()) {
    const replaced = replacer.pieces(indices.map((i) => before[i]!));
    indices.forEach((i, j) => {
      after[i] = replaced[j]!;
    });
  }
  const out = [...texts];
  const shift = new Map<number, number>();
  let k = 0;
  for (const seg of segments) {
    const n = seg.leaves.length;
    const b = before.slice(k, k + n);
    const a = after.slice(k, k + n);
    k += n;
    if (b.every((x, i) => x === a[i])) continue;
    const isJson = !(n === 1 && b[0] === seg.raw);
    const text = out[seg.frame]!;
    const replaced = rewrite(seg.raw, b, a, isJson) ?? replacer.text(seg.raw);
    const at = seg.at + (shift.get(seg.frame) ?? 0);
    out[seg.frame] = text.slice(0, at) + replaced + text.slice(at + seg.raw.length);
    shift.set(seg.frame, (shift.get(seg.frame) ?? 0) + replaced.length - seg.raw.length);
  }
  return frames.map((f, i) => ('text' in f && out[i] !== f.text ? { ...f, text: out[i]! } : f));
}

/**
 * A recorded frame with this run's roots put back (the inverse of {@link scrubFrames}). Inside a JSON payload
 * a root goes in as JSON spells it, so a directory holding `"` or `\` keeps the payload valid; the raw spelling
 * around it is kept. A payload that is not JSON (or whose spelling the rewrite cannot follow) gets the root as is.
 */
export function hydrateFrame(frame: Frame, roots: VolatileRoots): Frame {
  if (!('text' in frame) || !frame.text.includes('{{')) return frame;
  let text = frame.text;
  let shift = 0;
  for (const seg of jsonSegments([frame.text])) {
    if (!seg.raw.includes('{{')) continue;
    const isJson = !(seg.leaves.length === 1 && seg.leaves[0] === seg.raw);
    const before = seg.leaves.filter((l) => l.includes('{{'));
    const after = before.map((l) => hydrateText(l, roots));
    const replaced = rewrite(seg.raw, before, after, isJson) ?? hydrateText(seg.raw, roots);
    const at = seg.at + shift;
    text = text.slice(0, at) + replaced + text.slice(at + seg.raw.length);
    shift += replaced.length - seg.raw.length;
  }
  return { ...frame, text };
}
