/**
 * Which recorded request a live one that matched nothing was meant to be (vcrpy's "closest
 * recordings"), and where they first differ: the JSON Patch between them (fast-json-patch), its first
 * operation in document order, as a JSON path with both values.
 */
import jsonPatch, { type Operation } from 'fast-json-patch';
import type { JsonValue, NormalizedRequest } from './normalize.js';

export interface Difference {
  /** JSON path of the first difference: `body.messages[2].content`, `path`, `headers.x-a`. */
  path: string;
  /** The recorded value there (undefined when the live request added it). */
  recorded?: unknown;
  /** The live value there (undefined when the live request lacks it). */
  live?: unknown;
  /** How many JSON Patch operations turn the recorded request into the live one. */
  operations: number;
}

/** The request as a document, its parts in a fixed order (so "first" means the same thing every time). */
function doc(r: NormalizedRequest): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = { method: r.method, path: r.path };
  if (r.headers) out.headers = r.headers;
  if (r.body !== undefined) out.body = r.body;
  if (r.text !== undefined) out.text = r.text;
  if (r.base64 !== undefined) out.base64 = r.base64;
  return out;
}

function segments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A position in document order: per segment, the index of the key (or element) in its container. */
function position(root: unknown, segs: string[]): number[] {
  const out: number[] = [];
  let at: unknown = root;
  for (const s of segs) {
    if (Array.isArray(at)) {
      out.push(Number(s));
      at = at[Number(s)];
    } else if (at && typeof at === 'object') {
      const keys = Object.keys(at);
      const i = keys.indexOf(s);
      out.push(i < 0 ? keys.length : i);
      at = (at as Record<string, unknown>)[s];
    } else out.push(0);
  }
  return out;
}

function before(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return a.length < b.length;
}

/** `body.messages[2].content` from JSON Pointer segments. */
export function jsonPath(segs: readonly string[], root: unknown): string {
  let out = '';
  let at: unknown = root;
  for (const s of segs) {
    if (Array.isArray(at)) out += `[${s}]`;
    else out += /^[A-Za-z_$][\w$-]*$/.test(s) ? (out ? `.${s}` : s) : `[${JSON.stringify(s)}]`;
    at = at && typeof at === 'object' ? (at as Record<string, unknown>)[s] : undefined;
  }
  return out || '(request)';
}

function valueAt(root: unknown, segs: readonly string[]): unknown {
  let at: unknown = root;
  for (const s of segs) {
    if (!at || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[s];
  }
  return at;
}

/** The first difference between a recorded and a live request, or undefined when they are equal. */
export function firstDifference(
  recorded: NormalizedRequest,
  live: NormalizedRequest,
): Difference | undefined {
  const a = doc(recorded);
  const b = doc(live);
  const ops: Operation[] = jsonPatch.compare(a, b);
  if (ops.length === 0) return undefined;
  let first = ops[0]!;
  let firstPos = position(first.op === 'add' ? b : a, segments(first.path));
  for (const op of ops.slice(1)) {
    const pos = position(op.op === 'add' ? b : a, segments(op.path));
    if (before(pos, firstPos)) {
      first = op;
      firstPos = pos;
    }
  }
  const segs = segments(first.path);
  return {
    path: jsonPath(segs, first.op === 'add' ? b : a),
    recorded: valueAt(a, segs),
    live: valueAt(b, segs),
    operations: ops.length,
  };
}

/**
 * The recorded request closest to `live`: among those with the same method and path if any, the one
 * the fewest patch operations away (earliest on a tie). Undefined when nothing was recorded.
 */
export function closest(
  live: NormalizedRequest,
  recorded: ReadonlyArray<{ index: number; request: NormalizedRequest }>,
): { index: number; difference?: Difference } | undefined {
  const same = recorded.filter((r) => r.request.method === live.method && r.request.path === live.path);
  let best: { index: number; difference?: Difference } | undefined;
  for (const r of same.length ? same : recorded) {
    const difference = firstDifference(r.request, live);
    if (!difference) return { index: r.index };
    if (!best || difference.operations < best.difference!.operations) best = { index: r.index, difference };
  }
  return best;
}

/** A value for a message: a string around where it departs from `other` (…context…), anything else as JSON. */
export function excerpt(value: unknown, other: unknown, width = 60): string {
  if (value === undefined) return '(absent)';
  if (typeof value !== 'string' || typeof other !== 'string') {
    const s = JSON.stringify(value);
    return s.length > width * 2 ? `${s.slice(0, width * 2)}…` : s;
  }
  let p = 0;
  while (p < value.length && p < other.length && value[p] === other[p]) p++;
  const from = Math.max(0, p - Math.floor(width / 2));
  const to = Math.min(value.length, p + width);
  return `${from > 0 ? '…' : ''}${JSON.stringify(value.slice(from, to))}${to < value.length ? '…' : ''} (at character ${p})`;
}
