// Hostile inputs for the fuzz tests of every parser in the repo (input.json, replay.override.json,
// storage rows, agent stdout, normalization), and the property every parser must keep: a valid value or
// its own typed error, readable and bounded, in bounded time and memory. Lives in the lowest package so
// the tests of every package can use it. Arbitraries yield small *specs* that are built inside the
// property: a failing case then prints as `{"kind":"huge","length":9000000,...}`, not 9 MB of text.
import { deepStrictEqual } from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { anyText } from './texts.js';

/** One mebibyte. */
export const MB = 1 << 20;

/** A hostile value to put where a document field was: small and wrong, megabytes long, or 10^4+ levels deep. */
export type HostileSpec =
  | { kind: 'value'; value: unknown }
  | { kind: 'huge'; length: number; piece: string }
  | { kind: 'deep'; depth: number; shape: 'array' | 'object' };

/** JSON text nested `depth` levels deep (built as text: building it as a value would recurse). */
export function deepJsonText(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array'
    ? `${'['.repeat(depth)}0${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
}

/** The value a spec stands for (JSON.parse is iterative in V8, so deep values are safe to build). */
export function buildHostile(spec: HostileSpec): unknown {
  switch (spec.kind) {
    case 'value':
      return spec.value;
    case 'huge':
      return spec.piece.repeat(Math.ceil(spec.length / spec.piece.length)).slice(0, spec.length);
    case 'deep':
      return JSON.parse(deepJsonText(spec.depth, spec.shape));
  }
}

/** Strings that break naive code: NUL, lone surrogates, BOM, CR, U+2028, quotes, placeholders. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  anyText(40),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\ufeff{}',
    '\r\n',
    'a\rb',
    '\u2028\u2029',
    '{{cwd}}',
    '__proto__',
    'constructor',
    '-1',
    '1e999',
  ),
);

/** Small wrong values: every JSON type, nasty strings, odd numbers, shallow random JSON. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -0, 1e308, [], {}),
  nastyString,
  fc.jsonValue({ maxDepth: 3 }),
);

/** A small hostile value spec. */
export const smallHostile: fc.Arbitrary<HostileSpec> = wrongValue.map((value) => ({ kind: 'value', value }));

/** A 1-16 MB string spec (a repeated random piece). */
export const hugeHostile: fc.Arbitrary<HostileSpec> = fc
  .record({
    length: fc.integer({ min: MB, max: 16 * MB }),
    piece: fc.oneof(
      fc.string({ minLength: 1, maxLength: 6 }),
      fc.constantFrom('\u0000', '\ud800', '😀', '"'),
    ),
  })
  .map((r) => ({ kind: 'huge' as const, ...r }));

/** A 10^4-10^5 levels deep array or object spec. */
export const deepHostile: fc.Arbitrary<HostileSpec> = fc
  .record({ depth: fc.integer({ min: 10_000, max: 100_000 }), shape: fc.constantFrom('array', 'object') })
  .map((r) => ({ kind: 'deep' as const, ...r }) as HostileSpec);

/** A huge or deep spec (the slow cases, run fewer times). */
export const bigHostile: fc.Arbitrary<HostileSpec> = fc.oneof(hugeHostile, deepHostile);

/** A path into a JSON document. */
export type JsonPath = Array<string | number>;

/** Every path into a (small) JSON document, the root included. */
export function pathsOf(doc: unknown, at: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [at];
  if (Array.isArray(doc)) {
    for (const [i, v] of doc.entries()) out.push(...pathsOf(v, [...at, i]));
  } else if (doc && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) out.push(...pathsOf(v, [...at, k]));
  }
  return out;
}

/** One field mutation: replaced by a hostile value, removed, or joined by an unknown sibling key. */
export type Mutation =
  | { op: 'replace'; path: JsonPath; spec: HostileSpec }
  | { op: 'delete'; path: JsonPath }
  | { op: 'extraKey'; path: JsonPath; key: HostileSpec; spec: HostileSpec };

/** Mutations of `doc`: one path picked among all of its paths, hostile values drawn from `specs`. */
export function mutationOf(doc: unknown, specs: fc.Arbitrary<HostileSpec>): fc.Arbitrary<Mutation> {
  const path = fc.constantFrom(...pathsOf(doc));
  const key: fc.Arbitrary<HostileSpec> = fc.oneof(
    nastyString.map((value) => ({ kind: 'value' as const, value })),
    specs.filter((s) => s.kind !== 'deep'),
  );
  return fc.oneof(
    fc.record({ op: fc.constant('replace' as const), path, spec: specs }),
    fc.record({ op: fc.constant('delete' as const), path }),
    fc.record({ op: fc.constant('extraKey' as const), path, key, spec: specs }),
  );
}

/**
 * A copy of `doc` with the mutation applied (an unknown key lands in the object at or above the path);
 * `build` turns specs into values.
 */
export function applyMutation(doc: unknown, m: Mutation, build = buildHostile): unknown {
  const root = { v: structuredClone(doc) } as Record<string | number, unknown>;
  const path: JsonPath = ['v', ...m.path];
  let parent = root as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (m.op === 'replace') parent[last] = build(m.spec);
  else if (m.op === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    let target = parent[last];
    if (!target || typeof target !== 'object' || Array.isArray(target)) target = parent;
    const obj = (target === root ? root.v : target) as Record<string, unknown>;
    if (obj && typeof obj === 'object' && !Array.isArray(obj)) obj[keyText(build(m.key))] = build(m.spec);
  }
  return root.v;
}

/** A built key spec as a property name (a small JSON value as its JSON text). */
function keyText(key: unknown): string {
  return typeof key === 'string' ? key : String(JSON.stringify(key));
}

const DEEP_MARKER = '\u0000deep-value-marker\u0000';

/**
 * The JSON text of `doc` with the mutation applied, for parsers of text. A deep value is spliced in as
 * text, because JSON.stringify itself overflows the stack on it. `''` when the mutation removed the root.
 */
export function mutatedJsonText(doc: unknown, m: Mutation): string {
  const mutated = applyMutation(doc, m, (spec) => (spec.kind === 'deep' ? DEEP_MARKER : buildHostile(spec)));
  const text = JSON.stringify(mutated) ?? '';
  if (m.op === 'delete' || m.spec.kind !== 'deep') return text;
  return text.replace(JSON.stringify(DEEP_MARKER), deepJsonText(m.spec.depth, m.spec.shape));
}

/** A valid document (one of `docs`) with one field mutated; the mutation is what a failure prints. */
export function mutatedDoc(
  docs: readonly unknown[],
  specs: fc.Arbitrary<HostileSpec>,
): fc.Arbitrary<{ seed: number; mutation: Mutation }> {
  return fc
    .nat({ max: docs.length - 1 })
    .chain((seed) => mutationOf(docs[seed], specs).map((mutation) => ({ seed, mutation })));
}

/** Byte sequences that are not UTF-8: a lone continuation, overlong, cut multi-byte, surrogate, > U+10FFFF. */
export const invalidUtf8: fc.Arbitrary<readonly number[]> = fc.oneof(
  fc.constantFrom<readonly number[]>(
    [0xff],
    [0xfe, 0xff],
    [0x80],
    [0xc0, 0x80],
    [0xe2, 0x82],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
  ),
  fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 6 }),
);

/** A mutation of a text file's bytes: the hostile things editors, crashes and disks do to files. */
export type ByteMutation =
  | { op: 'truncate'; at: number }
  | { op: 'bom' }
  | { op: 'crlf' }
  | { op: 'insert'; at: number; bytes: readonly number[] }
  | { op: 'appendLine'; spec: HostileSpec }
  | { op: 'random'; bytes: readonly number[] };

/** Byte mutations; `at` is a fraction of the length, so one mutation fits any file. */
export const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.constant({ op: 'bom' as const }),
  fc.constant({ op: 'crlf' as const }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.oneof(
      invalidUtf8,
      fc.constantFrom<readonly number[]>([0], [0x0a], [0x0d], [0x22], [0x7b], [0x5d, 0x2c]),
    ),
  }),
  fc.record({
    op: fc.constant('random' as const),
    bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }),
  }),
);

/** A byte mutation appending a huge or deep line (the slow cases). */
export const bigLineMutation: fc.Arbitrary<ByteMutation> = bigHostile.map((spec) => ({
  op: 'appendLine' as const,
  spec,
}));

/**
 * The bytes of a hostile line: deep JSON text, or a huge string value whose piece is written raw (a NUL or
 * quote piece makes it invalid JSON, which is hostile too; escaping would multiply the size sixfold).
 */
function hostileLine(spec: HostileSpec): Buffer {
  if (spec.kind === 'deep') return Buffer.from(deepJsonText(spec.depth, spec.shape));
  return Buffer.from(`{"event":"${String(buildHostile(spec))}"}`);
}

/** `bytes` with the mutation applied. */
export function applyByteMutation(bytes: Buffer, m: ByteMutation): Buffer {
  const pos = (at: number) => Math.floor(at * bytes.length);
  switch (m.op) {
    case 'truncate':
      return bytes.subarray(0, pos(m.at));
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    case 'crlf':
      return Buffer.from(bytes.toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
    case 'insert':
      return Buffer.concat([bytes.subarray(0, pos(m.at)), Buffer.from(m.bytes), bytes.subarray(pos(m.at))]);
    case 'appendLine':
      return Buffer.concat([bytes, hostileLine(m.spec), Buffer.from('\n')]);
    case 'random':
      return Buffer.from(m.bytes);
  }
}

/** What running a parser on one input gave, and what it cost. */
export interface Outcome<T> {
  ok: boolean;
  value?: T;
  error?: unknown;
  ms: number;
  /** Growth of the process's resident set over the call, in bytes (GC may make it negative). */
  rssGrowth: number;
}

/** Runs `body` (sync or async), catching what it throws, timing it and measuring the RSS growth. */
export async function outcome<T>(body: () => T | Promise<T>): Promise<Outcome<T>> {
  const rss = process.memoryUsage.rss();
  const start = performance.now();
  try {
    const value = await body();
    return { ok: true, value, ms: performance.now() - start, rssGrowth: process.memoryUsage.rss() - rss };
  } catch (error) {
    return { ok: false, error, ms: performance.now() - start, rssGrowth: process.memoryUsage.rss() - rss };
  }
}

/** Bounds every parser keeps on hostile input. */
export interface Bounds {
  /** Longest error message (no multi-megabyte echo of the input). */
  maxMessage?: number;
  /** Longest time for one input, ms. */
  maxMs?: number;
  /** Largest RSS growth for one input, bytes. */
  maxRss?: number;
}

/**
 * Default bounds: 4000-character messages, 20 s and 768 MB per input (a 16 MB input included). The time
 * bound catches a hang or a runaway (quadratic) parse, not slowness: `npm test` runs these beside other
 * busy workers on 2 cores, so it is far above what one input takes on an idle machine (under 1 s).
 */
export const DEFAULT_BOUNDS: Required<Bounds> = { maxMessage: 4000, maxMs: 20_000, maxRss: 768 * MB };

function describe(e: unknown): string {
  if (e instanceof Error)
    return `${e.constructor.name}: ${e.message.slice(0, 300)}\n${e.stack?.slice(0, 600) ?? ''}`;
  return String(e).slice(0, 300);
}

/**
 * The parser property: it returned a value, or threw `type` whose message names `mustName` (the file,
 * a line) and is bounded; never another error; within time and memory bounds. Checked in plain code with
 * one assertion at the end: several per fuzz case cost too much. Plain node:assert, so the bottom package needs no test runner.
 */
export function expectParserOutcome<T>(
  o: Outcome<T>,
  type: abstract new (...args: never[]) => Error,
  mustName: readonly string[],
  bounds: Bounds = {},
): void {
  const b = { ...DEFAULT_BOUNDS, ...bounds };
  const problems: string[] = [];
  if (o.ms >= b.maxMs) problems.push(`took ${Math.round(o.ms)} ms (bound ${b.maxMs} ms)`);
  if (o.rssGrowth >= b.maxRss)
    problems.push(`RSS grew ${Math.round(o.rssGrowth / MB)} MB (bound ${b.maxRss / MB} MB)`);
  if (!o.ok) {
    if (!(o.error instanceof type)) problems.push(`expected a ${type.name}, got ${describe(o.error)}`);
    else {
      const message = o.error.message;
      if (message.length > b.maxMessage)
        problems.push(
          `message of ${message.length} chars (bound ${b.maxMessage}): ${JSON.stringify(message.slice(0, 300))}...`,
        );
      for (const part of mustName)
        if (!message.includes(part))
          problems.push(
            `message does not name ${JSON.stringify(part)}: ${JSON.stringify(message.slice(0, 300))}`,
          );
    }
  }
  deepStrictEqual(problems, [], 'a value, or the typed, readable, bounded error');
}

/**
 * The on-disk property of a file loader: each seed file, hit by a byte mutation (sometimes a huge or
 * deep line), written to a temporary file and loaded, gives a value or `type` naming the file; `check`
 * adds the loader's own checks on the outcome.
 */
export async function assertHostileFiles<T>(
  seeds: readonly Uint8Array[],
  load: (file: string) => Promise<T>,
  type: abstract new (...args: never[]) => Error,
  opts: { numRuns: number; check?: (o: Outcome<T>, file: string) => void },
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hostile-files-'));
  let n = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: seeds.length - 1 }),
        fc.oneof({ weight: 50, arbitrary: byteMutation }, { weight: 1, arbitrary: bigLineMutation }),
        async (seed, m) => {
          const file = join(dir, `${n++}.json`);
          await writeFile(file, applyByteMutation(Buffer.from(seeds[seed]!), m));
          const o = await outcome(() => load(file));
          expectParserOutcome(o, type, [file]);
          opts.check?.(o, file);
        },
      ),
      { numRuns: opts.numRuns },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
