/**
 * Which recorded request a live one that matched nothing was meant to be (vcrpy's "closest
 * recordings"), and where they first differ: the JSON Patch between them (fast-json-patch), its first
 * operation in document order, as a JSON path with both values.
 */
import jsonPatch, { type Operation } from 'fast-json-patch';
import { CONVERSATION_KEYS } from './canonical-order.js';
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

/** The JSON Patch from a recorded request to a live one, and its first operation in document order. */
function compareRequests(
  recorded: NormalizedRequest,
  live: NormalizedRequest,
): { ops: Operation[]; difference?: Difference } {
  const a = doc(recorded);
  const b = doc(live);
  const ops: Operation[] = jsonPatch.compare(a, b);
  if (ops.length === 0) return { ops };
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
    ops,
    difference: {
      path: jsonPath(segs, first.op === 'add' ? b : a),
      recorded: valueAt(a, segs),
      live: valueAt(b, segs),
      operations: ops.length,
    },
  };
}

/** The first difference between a recorded and a live request, or undefined when they are equal. */
export function firstDifference(
  recorded: NormalizedRequest,
  live: NormalizedRequest,
): Difference | undefined {
  return compareRequests(recorded, live).difference;
}

/** How many messages a request's conversation holds (its place in the conversation), or -1 without one. */
function conversationLength(r: NormalizedRequest): number {
  const body = r.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return -1;
  const name = CONVERSATION_KEYS.find((k) => Array.isArray(body[k]));
  return name ? (body[name] as unknown[]).length : -1;
}

/** A recorded request near a live one: what differs, and how it ranks. */
export interface Near {
  index: number;
  difference?: Difference;
}

/**
 * The recorded request closest to `live`: among those with the same method and path if any, the one
 * the fewest patch operations away; on a tie, the one at the same place in the conversation (as many
 * messages) and of the same shape (fewest parts added or removed); still tied, the earliest, and the
 * others as `tied` (a message shows them all). Undefined when nothing was recorded.
 */
export function closest(
  live: NormalizedRequest,
  recorded: ReadonlyArray<{ index: number; request: NormalizedRequest }>,
): (Near & { tied?: Near[] }) | undefined {
  const same = recorded.filter((r) => r.request.method === live.method && r.request.path === live.path);
  const length = conversationLength(live);
  const ranked: Array<Near & { rank: number[] }> = [];
  for (const r of same.length ? same : recorded) {
    const { ops, difference } = compareRequests(r.request, live);
    if (!difference) return { index: r.index };
    const shape = ops.filter((op) => op.op === 'add' || op.op === 'remove').length;
    const place = Math.abs(conversationLength(r.request) - length);
    ranked.push({ index: r.index, difference, rank: [ops.length, place, shape] });
  }
  if (ranked.length === 0) return undefined;
  const order = (x: number[], y: number[]) => x.findIndex((v, i) => v !== y[i]);
  ranked.sort((x, y) => {
    const i = order(x.rank, y.rank);
    return i < 0 ? x.index - y.index : x.rank[i]! - y.rank[i]!;
  });
  const [best, ...rest] = ranked.map(({ rank, ...near }) => ({ near, rank }));
  const tied = rest.filter((r) => order(r.rank, best!.rank) < 0).map((r) => r.near);
  return tied.length ? { ...best!.near, tied } : best!.near;
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
