// Fuzzing the session log readers with malformed and hostile rows, texts and files (see TESTING.md).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  applyByteMutation,
  applyMutation,
  bigHostile,
  bigLineMutation,
  byteMutation,
  expectParserOutcome,
  type HostileSpec,
  MB,
  type Mutation,
  mutationOf,
  type Outcome,
  outcome,
  pathsOf,
  smallHostile,
} from '@acp-snapshot/core/testing';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { decodeRows, encodeRows, LogFormatError, parseLogText, serializeLog } from './codec.js';
import { readLogFile } from './reader.js';
import { rowKindOf } from './rows.js';
import { anyRecords } from './testing/arbitraries.js';

const scenarios = join(import.meta.dirname, '..', '..', 'fixtures', 'scenarios');
/** Every committed session log: real rows of every kind, as seeds. */
const committed = readdirSync(scenarios)
  .filter((name) => existsSync(join(scenarios, name, 'session.jsonl')))
  .map((name) => ({
    file: `fixtures/scenarios/${name}/session.jsonl`,
    bytes: readFileSync(join(scenarios, name, 'session.jsonl')),
  }));

/** LogFormatError's line lies within the input; a decoded log re-encodes (the reader accepts only valid logs). */
function checkLog(o: Outcome<{ records: Parameters<typeof serializeLog>[0] }>, lines: number): void {
  if (o.ok) {
    expect(() => serializeLog(o.value!.records)).not.toThrow();
    return;
  }
  const e = o.error as LogFormatError;
  expect(e.line).toBeGreaterThanOrEqual(1);
  expect(e.line).toBeLessThanOrEqual(Math.max(1, lines));
}

test('decodeRows: rows with one field mutated decode to a valid log or fail naming <rows>:N', async () => {
  await fc.assert(
    fc.asyncProperty(
      anyRecords.chain((records) => {
        const rows = encodeRows(records);
        return mutationOf(rows, smallHostile).map((mutation) => ({ rows, mutation }));
      }),
      async ({ rows, mutation }) => {
        const mutated = applyMutation(rows, mutation);
        const input = Array.isArray(mutated) ? mutated : [mutated];
        const o = await outcome(() => ({ records: decodeRows(input) }));
        expectParserOutcome(o, LogFormatError, ['<rows>:']);
        checkLog(o, input.length);
      },
    ),
    { numRuns: 120 },
  );
});

test('decodeRows: a 1-16 MB string or a 10^4-10^5 deep value in any field fails readably, in bounded time and memory', async () => {
  const records = parseLogText(
    committed.find((c) => c.file.includes('all-row-kinds'))!.bytes.toString(),
  ).records;
  const encoded = encodeRows(records);
  // Half of the cases aim at the header row (few fields, each checked with its own message).
  const header = encodeRows(records.slice(0, 1));
  const target = fc.oneof(
    mutationOf(encoded, bigHostile).map((mutation) => ({ rows: encoded, mutation })),
    mutationOf(header, bigHostile).map((mutation) => ({ rows: header, mutation })),
  );
  await fc.assert(
    fc.asyncProperty(target, async ({ rows, mutation }) => {
      const mutated = applyMutation(rows, mutation);
      const input = Array.isArray(mutated) ? mutated : [mutated];
      const o = await outcome(() => ({ records: decodeRows(input) }));
      expectParserOutcome(o, LogFormatError, ['<rows>:']);
      checkLog(o, input.length);
    }),
    { numRuns: 16 },
  );
});

test('parseLogText: committed logs with hostile edits (truncation, BOM, CRLF, NUL, bad UTF-8, garbage) parse or fail at file:line', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...committed), byteMutation, async ({ file, bytes }, m) => {
      const text = applyByteMutation(bytes, m).toString('utf8');
      const o = await outcome(() => parseLogText(text, file));
      expectParserOutcome(o, LogFormatError, [`${file}:`]);
      checkLog(o, text.split('\n').length);
      for (const w of o.value?.warnings ?? []) expect(w.length).toBeLessThan(1000);
    }),
    { numRuns: 300 },
  );
});

let dir: string;
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codec-fuzz-'));
});
test.afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Plain, gzip of the mutated bytes, or mutated gzip bytes (a corrupt or cut member). */
const layering = fc.constantFrom('plain', 'gzip-then-mutate', 'mutate-then-gzip', 'random-after-magic');

function layered(bytes: Buffer, layer: string, apply: (b: Buffer) => Buffer): Buffer {
  switch (layer) {
    case 'gzip-then-mutate':
      return apply(gzipSync(bytes));
    case 'mutate-then-gzip':
      return gzipSync(apply(bytes));
    case 'random-after-magic':
      return Buffer.concat([Buffer.from([0x1f, 0x8b]), apply(Buffer.alloc(0))]);
    default:
      return apply(bytes);
  }
}

test('readLogFile: hostile bytes, plain or gzip (corrupt, cut, garbage), read or fail naming the file', async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...committed), byteMutation, layering, async (seed, m, layer) => {
      const path = join(dir, `case-${n++}.jsonl`);
      const bytes = layered(seed.bytes, layer, (b) => applyByteMutation(b, m));
      await writeFile(path, bytes);
      const o = await outcome(() => readLogFile(path));
      expectParserOutcome(o, LogFormatError, [path]);
      for (const w of o.value?.warnings ?? []) expect(w.length).toBeLessThan(1000);
      if (!o.ok) expect((o.error as LogFormatError).file).toBe(path);
    }),
    { numRuns: 150 },
  );
});

test('parseLogText and readLogFile: a 1-16 MB line or a 10^4-10^5 deep line fails readably, in bounded time and memory', async () => {
  const seed = committed.find((c) => c.file.includes('hello'))!;
  let n = 0;
  await fc.assert(
    fc.asyncProperty(bigLineMutation, fc.boolean(), async (m, gzip) => {
      const bytes = applyByteMutation(seed.bytes, m);
      const text = bytes.toString('utf8');
      const o = await outcome(() => parseLogText(text, seed.file));
      expectParserOutcome(o, LogFormatError, [`${seed.file}:`]);
      const path = join(dir, `big-${n++}.jsonl`);
      await writeFile(path, gzip ? gzipSync(bytes) : bytes);
      const f = await outcome(() => readLogFile(path));
      expectParserOutcome(f, LogFormatError, [path]);
    }),
    { numRuns: 5 },
  );
});

test('every field of a header, event and packed row replaced by a 2 MB string or a 10^4-deep value fails readably', () => {
  const records = parseLogText(
    committed.find((c) => c.file.includes('all-row-kinds'))!.bytes.toString(),
  ).records;
  const rows = encodeRows(records);
  const firstOf = (kind: string) => rows.findIndex((r) => rowKindOf(r) === kind);
  const targets = ['header', 'event', 'packed'].map(firstOf);
  const specs: HostileSpec[] = [
    { kind: 'huge', length: 2 * MB, piece: 'k' },
    { kind: 'deep', depth: 10_000, shape: 'array' },
  ];
  const problems: string[] = [];
  for (const index of targets) {
    for (const path of pathsOf(rows[index]).filter((p) => p.length === 1)) {
      for (const spec of specs) {
        for (const mutation of [
          { op: 'replace', path: [index, ...path], spec },
          { op: 'extraKey', path: [index], key: { kind: 'huge', length: 2 * MB, piece: 'k' }, spec },
        ] satisfies Mutation[]) {
          try {
            decodeRows(applyMutation(rows, mutation) as unknown[]);
          } catch (e) {
            const m = (e as Error).message;
            if (!(e instanceof LogFormatError))
              problems.push(`${path}: ${(e as Error).name}: ${m.slice(0, 100)}`);
            else if (m.length > 4000 || !m.startsWith(`<rows>:${index + 1}: `))
              problems.push(`${path}: ${m.length} chars: ${m.slice(0, 100)}`);
          }
        }
      }
    }
  }
  expect(problems).toEqual([]);
});
