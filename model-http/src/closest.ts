/**
 * Which recorded request a live one that matched nothing was meant to be (vcrpy's "closest
 * recordings"), and where they first differ: core's differ, its first difference in document order, as a
 * JSON path with both values.
 */
import {
  firstDifferingChar,
  formatPath,
  type PathSegment,
  textWindow,
  type ValueDifference,
  valueDifferences,
} from '@acp-snapshot/core';
import { CONVERSATION_KEYS } from './canonical-order.js';
import type { JsonValue, NormalizedRequest } from './normalize.js';

export interface Difference {
  /** JSON path of the first difference: `body.messages[2].content`, `path`, `headers.x-a`. */
  path: string;
  /** The same place as segments: `['body', 'messages', 2, 'content']`. */
  at: PathSegment[];
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

/** The differences from a recorded request to a live one (core's differ), and the first in document order. */
function compareRequests(
  recorded: NormalizedRequest,
  live: NormalizedRequest,
): { ops: ValueDifference[]; difference?: Difference } {
  const ops = valueDifferences(doc(recorded), doc(live));
  const first = ops[0];
  if (!first) return { ops };
  return {
    ops,
    difference: {
      path: formatPath(first.at),
      at: first.at,
      ...(first.recorded !== undefined ? { recorded: first.recorded } : {}),
      ...(first.live !== undefined ? { live: first.live } : {}),
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
  const at = firstDifferingChar(value, other);
  const p = at < 0 ? value.length : at;
  return `${textWindow(value, p, Math.floor(width / 2), width)} (at character ${p})`;
}
