/**
 * Where a recorded value and a live one differ, read one way by every package: the replay plugin's drift
 * (which message field changed), the HTTP model's closest recording (which request field changed) and the
 * harness's causes (which field of a JSON line changed). "First" is document order (the recorded value's
 * keys in their order, a key only the live value has at its place there), so the same change is found first
 * however many other changes follow it.
 */
import { cutPoint } from './cut.js';

/** A step into a value: an object key, or an array index. */
export type PathSegment = string | number;

/** One difference between two JSON values, as a JSON Patch operation turning recorded into live reads it. */
export interface ValueDifference {
  op: 'add' | 'remove' | 'replace';
  /** Where: the segments from the root (an empty list is the root itself). */
  at: PathSegment[];
  /** The recorded value there (undefined when the live value added it). */
  recorded?: unknown;
  /** The live value there (undefined when the live value lacks it). */
  live?: unknown;
}

/** The first difference, where it is as text, and how many differences there are in all. */
export interface FirstDifference extends ValueDifference {
  /** `body.messages[2].content`; `(root)` for the whole value. */
  path: string;
  /** How many differences (patch operations) turn the recorded value into the live one. */
  operations: number;
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** Every difference between `recorded` and `live`, in document order (one per patch operation). */
export function valueDifferences(
  recorded: unknown,
  live: unknown,
  at: PathSegment[] = [],
): ValueDifference[] {
  if (recorded === live) return [];
  if (!isContainer(recorded) || !isContainer(live) || Array.isArray(recorded) !== Array.isArray(live))
    return [{ op: 'replace', at, recorded, live }];
  if (Array.isArray(recorded) && Array.isArray(live)) {
    const out: ValueDifference[] = [];
    const n = Math.max(recorded.length, live.length);
    for (let i = 0; i < n; i++) {
      if (i >= live.length) out.push({ op: 'remove', at: [...at, i], recorded: recorded[i] });
      else if (i >= recorded.length) out.push({ op: 'add', at: [...at, i], live: live[i] });
      else out.push(...valueDifferences(recorded[i], live[i], [...at, i]));
    }
    return out;
  }
  const a = recorded as Record<string, unknown>;
  const b = live as Record<string, unknown>;
  const aKeys = Object.keys(a).filter((k) => a[k] !== undefined);
  const bKeys = Object.keys(b).filter((k) => b[k] !== undefined);
  // Each difference at its key's place: a recorded key's in the recorded order.
  const placed: Array<{ place: number; diffs: ValueDifference[] }> = [];
  aKeys.forEach((k, place) => {
    const diffs =
      b[k] === undefined
        ? [{ op: 'remove' as const, at: [...at, k], recorded: a[k] }]
        : valueDifferences(a[k], b[k], [...at, k]);
    if (diffs.length) placed.push({ place, diffs });
  });
  // An added key sits just after the recorded key it follows in the live order.
  const placeOf = new Map(aKeys.map((k, i) => [k, i]));
  let after = -1;
  for (const k of bKeys) {
    if (a[k] !== undefined) after = placeOf.get(k)!;
    else placed.push({ place: after + 0.5, diffs: [{ op: 'add', at: [...at, k], live: b[k] }] });
  }
  return placed.sort((x, y) => x.place - y.place).flatMap((p) => p.diffs);
}

/** `body.messages[2].content` from path segments (a key that is not a name is quoted: `headers["x-a"]`). */
export function formatPath(at: readonly PathSegment[]): string {
  let out = '';
  for (const s of at) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += /^[A-Za-z_$][\w$-]*$/.test(s) ? (out ? `.${s}` : s) : `[${JSON.stringify(s)}]`;
  }
  return out || '(root)';
}

/** The JSON Pointer of path segments: `/body/messages/2/content`. */
export function jsonPointer(at: readonly PathSegment[]): string {
  return at.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The first difference between two JSON values in document order, or undefined when they are equal. */
export function firstDifference(recorded: unknown, live: unknown): FirstDifference | undefined {
  const all = valueDifferences(recorded, live);
  const first = all[0];
  return first && { ...first, path: formatPath(first.at), operations: all.length };
}

/** The index of the first character at which two texts differ; -1 when they are equal. */
export function firstDifferingChar(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return i;
  return a.length === b.length ? -1 : n;
}

/**
 * A JSON-quoted window of `text` around character `at` (`before` characters before it, `after` after it), with
 * `…` where it was cut. Both ends fall on character boundaries (a cut emoji would show as a lone `\ud83d`), and
 * the window never opens inside a `{{placeholder}}`.
 */
export function textWindow(text: string, at: number, before = 40, after = 40): string {
  let from = cutPoint(text, Math.max(0, at - before));
  const open = text.lastIndexOf('{{', from);
  const close = text.indexOf('}}', open);
  if (open !== -1 && from > 0 && close !== -1 && close + 2 > from && from - open < 20) from = open;
  const to = cutPoint(text, Math.max(at, 0) + after);
  return `${from > 0 ? '…' : ''}${JSON.stringify(text.slice(from, to))}${to < text.length ? '…' : ''}`;
}
