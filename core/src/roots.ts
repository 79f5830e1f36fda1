/**
 * The one definition of volatile roots and their placeholders. Every surface that hides where a run
 * happened uses it: the request fingerprint (agent), the fixture projection (session log), the stdout
 * and workspace normalization, record-mode scrubbing and the guards (harness); and replay uses its
 * inverse, hydration, to put this run's real paths back into recorded model output.
 *
 * A root is a directory (`cwd`, `spill`, `realHome`...) or a word (`user`). One boundary rule for
 * all: a directory matches only as a whole path (not inside a longer file name: `/x/work` is not the
 * cwd in `/x/workspace` or `/x/work.bak`, but is in `/x/work.` at a sentence end and in `/x/work/a`);
 * longest spelling first, so a root nested in another (cwd inside the test root) wins.
 *
 * Model output streams a path in pieces (`"/tmp/acp-sn"`, `"ap-1f…/wo"`, `"rk/a.txt"`). Such a run of
 * fragments is matched as one text and each fragment keeps its share of the root as a slice
 * placeholder: `{{cwd[0:11]}}`, `{{cwd[11:19]}}`, `{{cwd[19:]}}`. Roots have a fixed length per
 * scenario, so hydrating the slices gives the fragments the recording had, and the last slice is
 * open-ended so the fragments always join to the whole live root.
 */
import { existsSync, realpathSync } from 'node:fs';
import { placeholderPattern } from './placeholder.js';

/** Volatile roots of a session: placeholder name -> directory (or word, for {@link WORD_ROOTS}). */
export type VolatileRoots = Record<string, string | undefined>;

/**
 * The placeholder names, in the order their meanings are documented: the session cwd, the seeded
 * parent of a cwd (`flags.workspaceParent`), persistence, spill, the generated HOME, the test's own
 * root directory, the machine's real home, the agent's install directory, the user's project directory, the
 * real user name.
 */
export const ROOT_NAMES = [
  'cwd',
  'workspaceParent',
  'persist',
  'spill',
  'home',
  'root',
  'realHome',
  'install',
  'project',
  'user',
] as const;

/** Roots whose value is a word (matched between word boundaries), not a directory. */
export const WORD_ROOTS: ReadonlySet<string> = new Set(['user']);

/** A root placeholder, whole (`{{cwd}}`) or a slice of a root split over fragments (`{{cwd[3:9]}}`, `{{cwd[9:]}}`). */
export const ROOT_PLACEHOLDER = placeholderPattern('(?:\\[(\\d+):(\\d*)\\])?', 'g');

// A path character that would continue the last name of a path (so the root is not a whole path there).
const NAME_CHAR = '[\\p{L}\\p{N}\\p{M}_-]';
// `}` too: after `{{cwd}}` a second root would otherwise match only once the first was replaced,
// and projecting a projection must change nothing.
const PATH_BEFORE = '(?<![\\p{L}\\p{N}\\p{M}_.}-])';
const PATH_AFTER = `(?!${NAME_CHAR}|\\.${NAME_CHAR})`;
const WORD_BEFORE = '(?<![\\p{L}\\p{N}\\p{M}_}]|\\{\\{)';
const WORD_AFTER = '(?![\\p{L}\\p{N}\\p{M}_]|\\}\\})';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function trimSlash(p: string): string {
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

/** One spelling of a root: `{{name}}` stands for `text`. */
export type RootSpelling = readonly [name: string, text: string];

/**
 * Claude's spelling of a directory in a file name (its project-memory path, `~/.claude/projects/-tmp-x-work/`):
 * every character but ASCII letters and digits as `-`.
 */
export function dashedPath(dir: string): string {
  return dir.replace(/[^a-zA-Z0-9]/g, '-');
}

const DASHED = 'Dashed';

/**
 * The spellings with each directory's dashed spelling added as `{{nameDashed}}`: agents put it in requests and
 * models quote it in answers. Only for directories of two segments or more (`/root` would be `-root`, a word).
 */
export function withDashedSpellings(spellings: readonly RootSpelling[]): RootSpelling[] {
  const out = [...spellings];
  for (const [name, text] of spellings)
    if (!WORD_ROOTS.has(name) && text.startsWith('/') && text.split('/').filter(Boolean).length >= 2)
      out.push([`${name}${DASHED}`, dashedPath(text)]);
  return out;
}

/** The spellings of plain roots (no filesystem aliases): one per root that is long enough to replace, and its dashed spelling. */
export function rootSpellings(
  roots: VolatileRoots,
  aliases: Record<string, readonly string[]> = {},
): RootSpelling[] {
  const out: RootSpelling[] = [];
  for (const [name, value] of Object.entries(roots)) {
    for (const raw of [value, ...(aliases[name] ?? [])]) {
      if (typeof raw !== 'string') continue;
      const text = WORD_ROOTS.has(name) ? raw : trimSlash(raw);
      if (text.length > 1 && text !== '/') out.push([name, text]);
    }
  }
  return withDashedSpellings(out);
}

/** One root found in a text. */
export interface RootMatch {
  start: number;
  end: number;
  name: string;
}

/**
 * Replaces roots by placeholders with the one boundary rule. Build one per set of roots and reuse it:
 * the patterns are compiled once.
 */
export class RootReplacer {
  private readonly paths?: RegExp;
  private readonly words?: RegExp;
  private readonly patterns: Array<{ name: string; re: RegExp; hint?: string }>;
  private readonly names = new Map<string, string>();
  /** The literal spellings behind `paths` and `words`: a text holding none of them skips that expression. */
  private readonly pathTexts: string[] = [];
  private readonly wordTexts: string[] = [];

  /**
   * `patterns` are directories known by their shape only (another run's generated root): matched with
   * the same boundary rule, after the spellings, and named `{{name}}`. A pattern's `hint` is a literal every
   * match contains: a text without it is not searched (the expressions' look-behind runs at every position).
   */
  constructor(
    spellings: readonly RootSpelling[],
    patterns: ReadonlyArray<{ name: string; source: string; hint?: string }> = [],
  ) {
    this.patterns = patterns.map((p) => ({
      name: p.name,
      re: new RegExp(`${PATH_BEFORE}(?:${p.source})${PATH_AFTER}`, 'gu'),
      ...(p.hint ? { hint: p.hint } : {}),
    }));
    const unique = new Map<string, string>();
    // Longest first: the alternation tries longer spellings first at each position.
    for (const [name, text] of [...spellings].sort((a, b) => b[1].length - a[1].length))
      if (!unique.has(text)) unique.set(text, name);
    const paths: string[] = [];
    const words: string[] = [];
    for (const [text, name] of unique) {
      this.names.set(text, name);
      (WORD_ROOTS.has(name) ? words : paths).push(escapeRegExp(text));
      (WORD_ROOTS.has(name) ? this.wordTexts : this.pathTexts).push(text);
    }
    if (paths.length) this.paths = new RegExp(`${PATH_BEFORE}(?:${paths.join('|')})${PATH_AFTER}`, 'gu');
    if (words.length) this.words = new RegExp(`${WORD_BEFORE}(?:${words.join('|')})${WORD_AFTER}`, 'gu');
  }

  /** A replacer for plain roots (and optional extra spellings per name). */
  static of(roots: VolatileRoots, aliases: Record<string, readonly string[]> = {}): RootReplacer {
    return new RootReplacer(rootSpellings(roots, aliases));
  }

  /** True when there is nothing to replace. */
  get empty(): boolean {
    return !this.paths && !this.words && this.patterns.length === 0;
  }

  /** Where the roots are in one text: each whole match, its placeholder name, in text order (what {@link text} replaces). */
  find(s: string): RootMatch[] {
    return this.empty || s.length < 2 ? [] : this.matches(s);
  }

  private matches(s: string): RootMatch[] {
    const out: RootMatch[] = [];
    const collect = (re: RegExp | undefined, text: string, name?: string) => {
      if (!re) return;
      for (const m of text.matchAll(re)) {
        out.push({ start: m.index, end: m.index + m[0].length, name: name ?? this.names.get(m[0])! });
      }
    };
    // Later kinds match only where earlier ones did not (a user name inside the real home stays part of it).
    // The mask is a name character, as the placeholder's `}` will be: what follows a root is not a path start.
    const masked = () =>
      out.length === 0
        ? s
        : out.reduce((t, m) => t.slice(0, m.start) + 'x'.repeat(m.end - m.start) + t.slice(m.end), s);
    const holds = (texts: readonly string[]) => texts.some((t) => s.includes(t));
    if (holds(this.pathTexts)) collect(this.paths, s);
    for (const p of this.patterns)
      if (p.hint === undefined || s.includes(p.hint)) collect(p.re, masked(), p.name);
    if (holds(this.wordTexts)) collect(this.words, masked());
    return out.sort((a, b) => a.start - b.start);
  }

  /** One text with its roots replaced. */
  text(s: string): string {
    if (this.empty || s.length < 2) return s;
    const ms = this.matches(s);
    if (ms.length === 0) return s;
    let out = '';
    let at = 0;
    for (const m of ms) {
      out += `${s.slice(at, m.start)}{{${m.name}}}`;
      at = m.end;
    }
    return out + s.slice(at);
  }

  /** Every string of a JSON-like value with its roots replaced (a new value; the input is not changed). */
  value<T>(v: T): T {
    return this.empty ? v : mapStrings(v, (s) => this.text(s));
  }

  /**
   * Fragments of one streamed text (chunks of one message, one reasoning, one tool call's arguments),
   * matched as their concatenation: a root inside one fragment becomes `{{name}}`, a root split over
   * fragments becomes one slice placeholder per fragment it touches.
   */
  pieces(parts: readonly string[]): string[] {
    if (this.empty || parts.length === 0) return [...parts];
    if (parts.length === 1) return [this.text(parts[0]!)];
    const joined = parts.join('');
    const ms = this.matches(joined);
    if (ms.length === 0) return [...parts];
    const out: string[] = [];
    let start = 0;
    for (const part of parts) {
      const end = start + part.length;
      let text = '';
      let at = start;
      for (const m of ms) {
        if (m.end <= start || m.start >= end) continue;
        const from = Math.max(m.start, start);
        const to = Math.min(m.end, end);
        text += joined.slice(at, from);
        if (from === m.start && to === m.end) text += `{{${m.name}}}`;
        else text += `{{${m.name}[${from - m.start}:${to === m.end ? '' : to - m.start}]}}`;
        at = to;
      }
      out.push(text + joined.slice(at, end));
      start = end;
    }
    return out;
  }
}

/** Every string of `value` with the roots replaced (the boundary rule of {@link RootReplacer}). */
export function replaceRoots<T>(value: T, roots: VolatileRoots): T {
  return RootReplacer.of(roots).value(value);
}

/** A text with its root placeholders (whole or sliced) replaced by this run's roots; unknown names stay. */
export function hydrateText(s: string, roots: VolatileRoots): string {
  if (!s.includes('{{')) return s;
  return s.replace(ROOT_PLACEHOLDER, (whole, name: string, from?: string, to?: string) => {
    const dashedOf =
      !Object.hasOwn(roots, name) && name.endsWith(DASHED) ? name.slice(0, -DASHED.length) : undefined;
    const base = dashedOf ?? name;
    const root = Object.hasOwn(roots, base) ? roots[base] : undefined;
    if (typeof root !== 'string' || root.length === 0 || (dashedOf && WORD_ROOTS.has(base))) return whole;
    const plain = WORD_ROOTS.has(base) ? root : trimSlash(root);
    const value = dashedOf ? dashedPath(plain) : plain;
    if (from === undefined) return value;
    return to === '' || to === undefined ? value.slice(Number(from)) : value.slice(Number(from), Number(to));
  });
}

/** Every string of `value` hydrated ({@link hydrateText}): what replay hands the agent. */
export function hydrateRoots<T>(value: T, roots: VolatileRoots): T {
  return mapStrings(value, (s) => hydrateText(s, roots));
}

/** `value` with `fn` applied to every string in it, at any depth (a new value). */
function mapStrings<T>(value: T, fn: (s: string) => string): T {
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return fn(x);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') {
      // fromEntries defines own properties: a `__proto__` key (JSON.parse keeps it as data) stays a key.
      return Object.fromEntries(Object.keys(x).map((k) => [k, walk((x as Record<string, unknown>)[k])]));
    }
    return x;
  };
  return walk(value) as T;
}

/**
 * The roots the harness hands an agent in `ACP_SNAPSHOT_ROOTS` (a JSON object name -> path), so the
 * agent fingerprints with the same roots the harness normalizes with. Throws a message naming the
 * variable and the fix on anything else.
 */
export function parseRootsEnv(text: string | undefined): VolatileRoots {
  if (text === undefined || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(
      `ACP_SNAPSHOT_ROOTS: not JSON (${(e as Error).message}); expected {"name": "/path", ...}`,
    );
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new Error('ACP_SNAPSHOT_ROOTS: expected a JSON object {"name": "/path", ...}');
  const out: VolatileRoots = {};
  for (const [k, x] of Object.entries(v)) {
    if (!/^[A-Za-z]+$/.test(k))
      throw new Error(`ACP_SNAPSHOT_ROOTS: ${JSON.stringify(k)}: a root name is letters only (like "cwd")`);
    if (typeof x !== 'string') throw new Error(`ACP_SNAPSHOT_ROOTS.${k}: expected a string, got ${typeof x}`);
    out[k] = x;
  }
  return out;
}

/** One trailing slash off (rootAliases's own rule, kept as it was when it moved here from the projection). */
function trimOneSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/**
 * Every spelling of each root: the path itself, its realpath, and the `/private/...` twin (macOS
 * /tmp and /var) when the filesystem says it is the same directory. Word roots (the user name) as given.
 */
export function rootAliases(roots: VolatileRoots): RootSpelling[] {
  const pairs: RootSpelling[] = [];
  for (const [name, raw] of Object.entries(roots)) {
    if (typeof raw !== 'string' || raw.length <= 1) continue;
    if (WORD_ROOTS.has(name) || !raw.startsWith('/')) {
      pairs.push(...rootSpellings({ [name]: raw }));
      continue;
    }
    const spellings = new Set([trimOneSlash(raw)]);
    if (existsSync(raw)) {
      const real = realpathSync(raw);
      spellings.add(trimOneSlash(real));
      for (const p of [...spellings]) {
        const twin = p.startsWith('/private/') ? p.slice('/private'.length) : `/private${p}`;
        if (existsSync(twin) && realpathSync(twin) === real) spellings.add(twin);
      }
    }
    for (const s of spellings) if (s.length > 1) pairs.push([name, s]);
  }
  return withDashedSpellings(pairs);
}
