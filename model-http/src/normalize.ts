/**
 * Request normalization: what of a model request is volatile between a recording and its replay is
 * replaced by placeholders before the request is fingerprinted and stored. Roots use the one rule of
 * @acp-snapshot/core (roots.ts), claude's dashed spelling of each directory included; dates, ids (by JSON
 * path or pattern) and custom functions are pluggable. Headers are ignored unless named.
 */

import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  CREDENTIAL_HEADERS,
  canonicalJson,
  dashedPath,
  placeholderName,
  RootReplacer,
  type RootSpelling,
  rootAliases,
  type VolatileRoots,
} from '@acp-snapshot/core';
import { scrubPath } from './formats.js';
import { type Secrets, scrub } from './secrets.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A volatile id: the value at a JSON Pointer (`/metadata/user_id`; a segment `*` is any key or index, a segment
 * `**` any depth), or every match of a pattern; `placeholder` is one `{{name}}`
 * (distinct pattern matches in a request become `{{name#1}}`, `{{name#2}}`...). The spelling of the harness's
 * other rules. The earlier spelling (a dotted path, `name: 'userId'`) is still read.
 */
export type IdRule =
  | { path: string; placeholder: string }
  | { pattern: string | RegExp; placeholder: string }
  | { path: string; name: string }
  | { pattern: string | RegExp; name: string };

/** A rule's placeholder name: `{{userId}}` (or the earlier bare `name`) -> `userId`. */
function idName(rule: IdRule): string {
  if ('name' in rule) return rule.name;
  const name = placeholderName(rule.placeholder);
  if (name === undefined)
    throw new Error(
      `normalize.ids: placeholder ${JSON.stringify(rule.placeholder)} is not one {{name}} (e.g. "{{userId}}")`,
    );
  return name;
}

export interface NormalizeOptions {
  /** This run's volatile roots (name -> directory, or word for `user`), replaced by `{{name}}`. */
  roots?: VolatileRoots;
  /**
   * Spell every directory root also as claude does in its project-memory path (`/tmp/x/y` -> `-tmp-x-y`),
   * replaced by `{{nameDashed}}`. Default true.
   */
  dashed?: boolean;
  /** Replace dates (ISO, `Today's date is ...`, `Tuesday, December 1, 2026`...) by `{{date}}`. Default true. */
  dates?: boolean;
  /** Ids: a path rule replaces the whole value by `{{name}}`; a pattern rule each distinct match by `{{name#N}}`. */
  ids?: readonly IdRule[];
  /** Request headers that take part in matching (lower-case names); all others are ignored. Never credentials. */
  headers?: readonly string[];
  /**
   * Secrets in the body (a key an agent read from a file, a token in a tool's output, anyone's home) are
   * replaced by the one secrets module (secrets.ts) before anything is stored or fingerprinted; these are the
   * key values matched verbatim besides its formats (the upstream key's). This machine's home and user name
   * are roots here (`roots`), replaced first.
   */
  credentials?: Pick<Secrets, 'values'>;
  /** Applied last, to the parsed body, for what the rules above cannot say. */
  custom?: ReadonlyArray<(body: JsonValue) => JsonValue>;
}

/** A request as it is stored and matched: credentials gone, volatile parts replaced. */
export interface NormalizedRequest {
  method: string;
  /** Path and query, without credential parameters. */
  path: string;
  /** The configured headers only. */
  headers?: Record<string, string>;
  /** The body when it is JSON... */
  body?: JsonValue;
  /** ...else its text (normalized like any string)... */
  text?: string;
  /** ...else its bytes, when not UTF-8. */
  base64?: string;
}

const MONTH =
  '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
const WEEKDAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?:day|sday|nesday|rsday|urday)?';
const DAY = '\\d{1,2}(?:st|nd|rd|th)?';
const TIME = '\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:\\s?[AaPp][Mm])?';
/** Date spellings agents put in prompts, most specific first (one alternation, so one pass per string). */
const DATE_FORMS = [
  // ISO: 2026-12-01, 2026-12-01T14:12:44.123Z, 2026-12-01 14:12:44+01:00
  `\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?(?![\\d])`,
  // Date.toString(): Tue Dec 01 2026 14:12:44 GMT+0000 (Coordinated Universal Time)
  `${WEEKDAY} ${MONTH} \\d{2} \\d{4}(?: ${TIME}(?: GMT[+-]\\d{4})?(?: \\([^)]*\\))?)?`,
  // Tuesday, December 1, 2026 (at 2:12 PM) / December 1st, 2026
  `(?:${WEEKDAY},? )?${MONTH}\\.? ${DAY},? \\d{4}(?:,? (?:at )?${TIME})?`,
  // Tuesday, 1 December 2026 / 1 Dec 2026
  `(?:${WEEKDAY},? )?${DAY} ${MONTH}\\.?,? \\d{4}`,
  // 12/1/2026, 1.12.2026
  `\\d{1,2}[/.]\\d{1,2}[/.]\\d{4}\\b`,
];
// The lookahead on the first character lets the engine skip most positions without trying each form.
const DATE = new RegExp(`\\b(?=[\\dMTWFSJAOND])(?:${DATE_FORMS.join('|')})`, 'g');

// What follows "Today's date is" up to the sentence end is a date in whatever spelling.
const TODAY =
  /(\b(?:Today's date is|Current date:|The current date is)\s*)([^.\n]{4,40}?)(?=\.(?:\s|$)|\n|$)/gi;

const isDigit = (s: string, i: number) =>
  i >= 0 && i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Offsets of every occurrence of `needles` in `s` (indexOf: native, fast on a 40 KB prompt where a regex scan is not). */
function occurrences(s: string, needles: readonly string[]): number[] {
  const out: number[] = [];
  for (const n of needles) for (let p = s.indexOf(n); p >= 0; p = s.indexOf(n, p + 1)) out.push(p);
  return out;
}

/**
 * `s` with `re` replaced only in windows around `anchors` (a pattern's mandatory part found cheaply),
 * each widened back to whitespace so the pattern's word boundaries are those of the whole string.
 */
function replaceNear(
  s: string,
  anchors: number[],
  before: number,
  after: number,
  replace: (chunk: string) => string,
): string {
  if (anchors.length === 0) return s;
  anchors.sort((a, b) => a - b);
  let out = '';
  let at = 0;
  let from = -1;
  let to = -1;
  let changed = false;
  const flush = () => {
    if (from < 0) return;
    const chunk = s.slice(from, to);
    const replaced = replace(chunk);
    if (replaced !== chunk) changed = true;
    out += s.slice(at, from) + replaced;
    at = to;
  };
  for (const p of anchors) {
    let f = Math.max(0, p - before);
    while (f > 0 && f > p - before - 32 && !/\s/.test(s[f - 1]!)) f--;
    const t = Math.min(s.length, p + after);
    if (f <= to) to = Math.max(to, t);
    else {
      flush();
      [from, to] = [Math.max(f, at), t];
    }
  }
  flush();
  // Nothing replaced: the string itself, not a copy pieced together from slices (which JSON.stringify,
  // later, walks far more slowly than a flat string).
  return changed ? out + s.slice(at) : s;
}

/** `s` with its dates replaced: every spelling holds a year (19xx or 20xx), so the pattern runs only near one. */
function replaceDates(s: string): string {
  const years = occurrences(s, ['19', '20']).filter(
    (p) => isDigit(s, p + 2) && isDigit(s, p + 3) && !isDigit(s, p + 4) && !isDigit(s, p - 1),
  );
  return replaceNear(s, years, 48, 80, (chunk) => chunk.replace(DATE, '{{date}}'));
}

/** `s` with what follows "Today's date is" (and its kin) replaced: they all hold "date". */
function replaceToday(s: string): string {
  return replaceNear(s, occurrences(s, ['date', 'Date', 'DATE']), 24, 64, (chunk) =>
    chunk.replace(TODAY, (_, lead: string) => `${lead}{{date}}`),
  );
}

/** Claude's spelling of a directory in a file name (the shared rule's; kept here for this package's callers). */
export { dashedPath };

/** Sets an own key: a `__proto__` key (JSON.parse keeps it as data) stays a key. */
export function defineKey(o: { [key: string]: JsonValue }, key: string, value: JsonValue): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

type Segment = string; // a key, `*` (any key or index) or `**` (any depth)

/** A JSON Pointer (RFC 6901 escapes; segments `*` and `**` as in IdRule) or the earlier dotted path (`a[*].b`). */
function parsePath(path: string): Segment[] {
  if (path.startsWith('/'))
    return path
      .slice(1)
      .split('/')
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path
    .replace(/\[(\*|\d+)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '');
}

/** Enough for the strings a session repeats; a run past it starts over rather than grow. */
const MEMO_MAX_ENTRIES = 8192;

/** Keys and string values repeat from call to call (tool schemas, message roles): their JSON forms are kept. */
const JSON_MEMO_MAX_ENTRIES = 8192;

/** Replaces roots, ids and dates in request bodies; build one per run (patterns compile once). */
export class RequestNormalizer {
  /** The roots rule of this run (with the dashed spellings): also what scrubs recorded frames. */
  readonly replacer: RootReplacer;
  /** This run's roots with their dashed spellings, for hydrating recorded frames. */
  readonly hydration: VolatileRoots;
  /** Every text a root is spelled as: a string holding none of them is left alone without running the rule. */
  private readonly spellings: string[];
  private readonly pathIds: Array<{ path: Segment[]; name: string }> = [];
  private readonly patternIds: Array<{ re: RegExp; name: string }> = [];
  private readonly headerNames: string[];
  /** The id rules alone, keeping placeholders: what {@link recorded} applies (built on first use). */
  private idsOnly?: RequestNormalizer;
  private readonly memo = new Map<string, string>();
  private readonly credentials: Secrets;
  private readonly jsonMemo = new Map<string, string>();

  constructor(
    private readonly options: NormalizeOptions = {},
    /** A pattern id's match that is a placeholder, or lies in one, is kept (see {@link recorded}). */
    private readonly keepPlaceholders = false,
  ) {
    this.credentials = { values: options.credentials?.values ?? [] };
    // The shared roots rule spells each directory the dashed way too; `dashed: false` leaves those out.
    const spellings: RootSpelling[] = rootAliases(options.roots ?? {}).filter(
      ([name]) => options.dashed !== false || !name.endsWith('Dashed'),
    );
    this.replacer = new RootReplacer(spellings);
    this.spellings = [...new Set(spellings.map(([, text]) => text))];
    this.hydration = { ...options.roots };
    if (options.dashed !== false)
      for (const [name, value] of Object.entries(options.roots ?? {}))
        if (typeof value === 'string' && value.startsWith('/'))
          this.hydration[`${name}Dashed`] = dashedPath(value.replace(/\/+$/, ''));
    for (const rule of options.ids ?? []) {
      const name = idName(rule);
      if ('path' in rule) this.pathIds.push({ path: parsePath(rule.path), name });
      else {
        const source = typeof rule.pattern === 'string' ? rule.pattern : rule.pattern.source;
        this.patternIds.push({ re: new RegExp(source, 'g'), name });
      }
    }
    for (const h of options.headers ?? [])
      if (CREDENTIAL_HEADERS.has(h.toLowerCase()))
        throw new Error(`normalize.headers: "${h}" carries a credential and is never matched or stored`);
    this.headerNames = (options.headers ?? []).map((h) => h.toLowerCase()).sort();
  }

  /** One string with roots, pattern ids and dates replaced; `seen` numbers pattern ids within one request. */
  text(s: string, seen: Map<string, string> = new Map()): string {
    // An agent sends its system prompt and tool schemas again with every call: each string is normalized
    // once per run. Not with pattern ids, whose placeholders are numbered per request.
    const memo = this.patternIds.length === 0;
    if (memo) {
      const hit = this.memo.get(s);
      if (hit !== undefined) return hit;
    }
    const out = this.normalizeText(s, seen);
    if (memo) {
      if (this.memo.size >= MEMO_MAX_ENTRIES) this.memo.clear();
      this.memo.set(s, out);
    }
    return out;
  }

  private normalizeText(s: string, seen: Map<string, string>): string {
    // Roots first: anyone's home is a secret, and this machine's is `{{realHome}}`, not a redacted one.
    let out = this.spellings.some((t) => s.includes(t)) ? this.replacer.text(s) : s;
    out = scrub(out, this.credentials);
    for (const { re, name } of this.patternIds) {
      out = out.replace(re, (m: string, ...rest: unknown[]) => {
        // The match's offset is the first number after the groups (strings or undefined).
        const from = rest.find((a) => typeof a === 'number') as number;
        if (this.keepPlaceholders && inPlaceholder(out, from, m.length)) return m;
        const key = `${name}\u0000${m}`;
        let ph = seen.get(key);
        if (!ph) {
          let n = 1;
          for (const k of seen.keys()) if (k.startsWith(`${name}\u0000`)) n++;
          ph = `{{${name}#${n}}}`;
          seen.set(key, ph);
        }
        return ph;
      });
    }
    if (this.options.dates !== false) out = replaceDates(replaceToday(out));
    return out;
  }

  /**
   * A parsed body normalized: a new value with its object keys sorted, so its plain JSON is canonical
   * (see {@link fingerprint}).
   */
  body(value: JsonValue): JsonValue {
    const seen = new Map<string, string>();
    const ids = this.pathIds;
    // The path of the value being walked, kept only when id rules need it (one array, pushed and popped).
    const at: string[] = [];
    // The canonical JSON of the result, written alongside it: what JSON.stringify would give, without a
    // second walk over 80 KB. The JSON form of each string is kept for the run, as its normalized text is.
    const json: string[] = [];
    const memo = this.jsonMemo;
    const leaf = (x: string): string => {
      let j = memo.get(x);
      if (j === undefined) {
        if (memo.size >= JSON_MEMO_MAX_ENTRIES) memo.clear();
        j = JSON.stringify(x);
        memo.set(x, j);
      }
      return j;
    };
    // `track`: whether an id rule can still match below this point; where none can, the path is not kept.
    const walk = (x: JsonValue, track: boolean): JsonValue => {
      if (typeof x === 'string' || typeof x === 'number') {
        const id = track ? ids.find((r) => matchesPath(r.path, at)) : undefined;
        const out = id ? `{{${id.name}}}` : typeof x === 'string' ? this.text(x, seen) : x;
        json.push(typeof out === 'string' ? leaf(out) : JSON.stringify(out));
        return out;
      }
      if (Array.isArray(x)) {
        json.push('[');
        const out: JsonValue[] = new Array(x.length);
        for (let i = 0; i < x.length; i++) {
          if (i > 0) json.push(',');
          if (!track) {
            out[i] = walk(x[i]!, false);
            continue;
          }
          at.push(String(i));
          const v = walk(
            x[i]!,
            ids.some((r) => couldMatchBelow(r.path, at)),
          );
          if (out) out[i] = v;
          at.pop();
        }
        json.push(']');
        return out as JsonValue;
      }
      if (x && typeof x === 'object') {
        const mark = json.length;
        json.push('{');
        const keys = Object.keys(x).sort();
        const out: { [key: string]: JsonValue } = {};
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i]!;
          json.push(i > 0 ? ',' : '', leaf(k), ':');
          let v: JsonValue;
          if (track) {
            at.push(k);
            v = walk(
              x[k]!,
              ids.some((r) => couldMatchBelow(r.path, at)),
            );
            at.pop();
          } else v = walk(x[k]!, false);
          defineKey(out, k, v);
        }
        json.push('}');
        // Integer-like keys come first in a JavaScript object whatever the insertion order, and so in the
        // canonical JSON (JSON.stringify of the sorted object): rare enough to write this object again.
        if (keys.some(isIndexKey)) {
          json.length = mark;
          json.push(JSON.stringify(out));
        }
        return out as JsonValue;
      }
      json.push(JSON.stringify(x));
      return x;
    };
    let out = walk(value, ids.length > 0);
    // Custom functions change the body after the walk: its JSON is written again.
    const custom = this.options.custom ?? [];
    if (custom.length) {
      for (const fn of custom) out = fn(out);
      out = JSON.parse(canonicalJson(out)) as JsonValue;
      if (out && typeof out === 'object') CANONICAL.set(out, JSON.stringify(out));
    } else if (out && typeof out === 'object') CANONICAL.set(out, json.join(''));
    return out;
  }

  /**
   * A recorded request with the id rules in force now applied, so a rule added after the recording (a kernel
   * version, a session id) matches without recording again. Only the id rules: roots, dates and credentials
   * were replaced at recording, and this run's roots must not be looked for in another run's placeholders
   * (the user's name may be a word inside one). A placeholder stays as it is, so a request recorded under
   * the rule comes out unchanged.
   */
  recorded(request: NormalizedRequest): NormalizedRequest {
    if (!this.options.ids?.length) return request;
    this.idsOnly ??= new RequestNormalizer({ ids: this.options.ids, dates: false, dashed: false }, true);
    const out: NormalizedRequest = { ...request };
    if (request.body !== undefined) out.body = this.idsOnly.body(request.body);
    if (request.text !== undefined) out.text = this.idsOnly.text(request.text);
    return out;
  }

  /** A live request as it is stored and matched. */
  request(
    method: string,
    path: string,
    headers: Record<string, string | string[] | undefined>,
    raw: Buffer,
  ): NormalizedRequest {
    const out: NormalizedRequest = { method: method.toUpperCase(), path: scrubPath(path) };
    if (this.headerNames.length) {
      const picked: Record<string, string> = {};
      for (const name of this.headerNames) {
        const v = headers[name];
        if (v !== undefined) picked[name] = this.text(Array.isArray(v) ? v.join(', ') : v);
      }
      out.headers = picked;
    }
    if (raw.length === 0) return out;
    if (!isUtf8(raw)) {
      out.base64 = raw.toString('base64');
      return out;
    }
    const text = raw.toString('utf8');
    let parsed: JsonValue | undefined;
    try {
      parsed = JSON.parse(text) as JsonValue;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) out.text = this.text(text);
    else out.body = this.body(parsed);
    return out;
  }
}

const PLACEHOLDER = /\{\{[^{}]*\}\}/g;

/** Whether `s[from, from + length)` is a placeholder or inside one. */
function inPlaceholder(s: string, from: number, length: number): boolean {
  for (const m of s.matchAll(PLACEHOLDER))
    if (m.index <= from && from + length <= m.index + m[0].length) return true;
  return false;
}

/** Whether `pattern` may match at `at` or below it (`at` is a prefix it allows). */
function couldMatchBelow(pattern: Segment[], at: string[]): boolean {
  if (pattern.includes('**')) return true;
  if (at.length > pattern.length) return false;
  for (let i = 0; i < at.length; i++) if (pattern[i] !== '*' && pattern[i] !== at[i]) return false;
  return true;
}

function matchesPath(pattern: Segment[], at: string[]): boolean {
  // Most rules have no `**`: one length check rejects nearly every leaf without recursion.
  if (!pattern.includes('**')) {
    if (pattern.length !== at.length) return false;
    for (let i = 0; i < pattern.length; i++) if (pattern[i] !== '*' && pattern[i] !== at[i]) return false;
    return true;
  }
  const go = (i: number, j: number): boolean => {
    if (i === pattern.length) return j === at.length;
    const seg = pattern[i]!;
    if (seg === '**') {
      for (let k = j; k <= at.length; k++) if (go(i + 1, k)) return true;
      return false;
    }
    if (j === at.length) return false;
    return (seg === '*' || seg === at[j]) && go(i + 1, j + 1);
  };
  return go(0, 0);
}

/** A key JavaScript orders before the others (an array index: 0 to 2^32 - 2, no leading zero). */
function isIndexKey(k: string): boolean {
  // Called for every key of every body: most start with a letter, and skip the pattern.
  const c = k.charCodeAt(0);
  return c >= 48 && c <= 57 && /^(?:0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;
}

// Bodies the normalizer built -> their canonical JSON, written while they were built.
const CANONICAL = new WeakMap<object, string>();

/**
 * sha256 hex of the canonical JSON (keys sorted at every depth) of a normalized request: what replay
 * matches on. Method and path are part of it, headers only when configured.
 */
export function fingerprint(request: NormalizedRequest): string {
  const { body, ...rest } = request;
  const head = canonicalJson(rest);
  const built = body && typeof body === 'object' ? CANONICAL.get(body) : undefined;
  const tail = body === undefined ? '' : (built ?? canonicalJson(body));
  return createHash('sha256').update(head).update('\n').update(tail).digest('hex');
}
