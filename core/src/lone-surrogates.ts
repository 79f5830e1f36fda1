// Half of a UTF-16 surrogate pair is not a character. JSON.stringify writes one as a `\ud83d` escape and
// JSON.parse reads it back without a word, but strict parsers (serde_json, so Rust ACP clients such as Zed)
// reject the whole message. An agent's stdout and every committed fixture are checked for them here, where
// the UTF-8 check (utf8.ts) cannot see them: the escape is plain ASCII.

/** Where a text first holds half of a surrogate pair. */
export interface LoneSurrogate {
  /** 1-based line. */
  line: number;
  /** 1-based byte column (of the escape's backslash, or of the code unit) within its line, as in utf8.ts. */
  column: number;
  /** The code unit, 0xd800-0xdfff. */
  unit: number;
  /** Written as a JSON `\uXXXX` escape (else it is the code unit itself, in a decoded string). */
  escaped: boolean;
}

// A `\u` escape of a surrogate; whether the backslash starts an escape depends on the backslashes before it.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;

const unitAt = (text: string, i: number) => Number.parseInt(text.slice(i + 2, i + 6), 16);
const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;

/** Whether the backslash at `i` starts an escape (is not itself escaped by an odd run before it). */
function startsEscape(text: string, i: number): boolean {
  let n = 0;
  while (i - n - 1 >= 0 && text.charCodeAt(i - n - 1) === 0x5c) n++;
  return n % 2 === 0;
}

/** The first code unit index of a decoded lone surrogate, or -1. */
function decodedLone(text: string): number {
  if (text.isWellFormed()) return -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isHigh(c) && isLow(text.charCodeAt(i + 1))) i++;
    else if (isHigh(c) || isLow(c)) return i;
  }
  return -1;
}

/** The first escaped lone surrogate's index (of its backslash), or -1. */
function escapedLone(text: string): number {
  SURROGATE_ESCAPE.lastIndex = 0;
  for (let m = SURROGATE_ESCAPE.exec(text); m; m = SURROGATE_ESCAPE.exec(text)) {
    if (!startsEscape(text, m.index)) continue;
    const unit = unitAt(text, m.index);
    const next = m.index + 6;
    if (isHigh(unit) && text.startsWith('\\u', next) && isLow(unitAt(text, next))) {
      SURROGATE_ESCAPE.lastIndex = next + 6;
      continue;
    }
    return m.index;
  }
  return -1;
}

/**
 * The first lone surrogate of `text` (a JSON document or JSONL, or any decoded text), as an escape
 * without its pair or as a decoded code unit; undefined when there is none.
 */
export function findLoneSurrogate(text: string): LoneSurrogate | undefined {
  const decoded = decodedLone(text);
  const escaped = escapedLone(text);
  if (decoded < 0 && escaped < 0) return undefined;
  const at = escaped < 0 || (decoded >= 0 && decoded < escaped) ? decoded : escaped;
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return {
    line,
    column: Buffer.byteLength(text.slice(lineStart, at), 'utf8') + 1,
    unit: at === decoded ? text.charCodeAt(at) : unitAt(text, at),
    escaped: at !== decoded,
  };
}

/** The message for a lone surrogate at `where` (`file:line` or a stream's line), saying what it means and `fix`. */
export function loneSurrogateMessage(where: string, p: LoneSurrogate, fix: string): string {
  const hex = p.unit.toString(16).padStart(4, '0');
  const what = p.escaped ? `a lone surrogate escape \\u${hex}` : `a lone surrogate (U+${hex.toUpperCase()})`;
  return (
    `${where}: ${what} at column ${p.column}, half of a UTF-16 surrogate pair (text cut inside an emoji or ` +
    `other non-BMP character); strict JSON parsers such as serde_json reject the whole message; ${fix}`
  );
}
