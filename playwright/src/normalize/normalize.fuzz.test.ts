// Fuzzing normalization (both surfaces): any JSON value, hostile strings, huge and deep values (see TESTING.md).

import {
  buildHostile,
  deepHostile,
  deepJsonText,
  expectParserOutcome,
  hugeHostile,
  nastyString,
  outcome,
} from '@acp-snapshot/core/testing';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import {
  MAX_NORMALIZE_DEPTH,
  NormalizeError,
  type NormalizeOptions,
  normalizeJsonlText,
  normalizeStdout,
} from './normalize.js';

/** A generated test root as roots.ts makes them, and its four directories. */
const roots = fc
  .tuple(fc.stringMatching(/^[0-9a-f]{8}$/), fc.stringMatching(/^[A-Za-z0-9]{6}$/))
  .map(([hex, rand]) => {
    const root = `/tmp/acp-snap-${hex}-${rand}`;
    return {
      cwd: `${root}/work`,
      persist: `${root}/persist`,
      spill: `${root}/spill`,
      home: `${root}/home`,
    };
  });

/** An ISO time of this era (years of six digits, `+237999-...`, are not timestamps the normalizer knows). */
const isoTime = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** A volatile value as agents write them: a path under a root, an ISO time, an id. */
const volatile = (r: Record<string, string>) =>
  fc.oneof(
    fc.tuple(fc.constantFrom(...Object.values(r)), nastyString).map(([dir, rest]) => `${dir}/${rest}`),
    isoTime,
    // Inside other text, delimited as the normalizer requires (a word boundary on each side).
    fc.tuple(nastyString, isoTime, nastyString).map(([a, t, b]) => `${a} ${t} ${b}`),
    fc.uuid(),
  );

/** A JSON value that mixes volatile strings and keys the normalizer treats specially. */
const field = (r: Record<string, string>): fc.Arbitrary<unknown> =>
  fc.letrec<{ v: unknown }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.jsonValue({ maxDepth: 1 }),
      nastyString,
      volatile(r),
      fc.integer({ min: 946_684_800_000, max: 4_102_444_800_000 }),
      fc.array(tie('v'), { maxLength: 3 }),
      fc.dictionary(
        fc.oneof(
          fc.constantFrom(
            'sessionId',
            'ts',
            'startedAt',
            'durationMs',
            'pid',
            'id',
            'jsonrpc',
            'method',
            'path',
          ),
          nastyString,
        ),
        tie('v'),
        { maxKeys: 4 },
      ),
    ),
  })).v;

/** An ACP-like message: JSON-RPC envelope, ids of every kind, a session id, and a random payload. */
const message = (r: Record<string, string>) =>
  fc.record(
    {
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.nat(), fc.string(), fc.constant(null)),
      method: fc.constantFrom('session/update', 'session/request_permission', 'fs/read_text_file'),
      params: fc.record({ sessionId: fc.oneof(fc.uuid(), nastyString), payload: field(r) }),
      result: field(r),
    },
    { requiredKeys: ['jsonrpc'] },
  );

/** Stdout of up to three agent processes: lines of messages or of any JSON, each tagged with its process. */
const stdout = roots.chain((r) =>
  fc.array(fc.tuple(fc.oneof(message(r), field(r)), fc.nat({ max: 2 })), { maxLength: 12 }).map((lines) => ({
    opts: { roots: r } satisfies NormalizeOptions,
    lines: lines
      .sort((a, b) => a[1] - b[1])
      .map(([value, process]) => ({ text: JSON.stringify(value), process })),
  })),
);

test('normalizeStdout: any JSON lines normalize without throwing, deterministically and idempotently', () => {
  fc.assert(
    fc.property(stdout, ({ opts, lines }) => {
      const once = normalizeStdout(lines, opts);
      expect(normalizeStdout(lines, opts)).toEqual(once);
      const again = once.map((text, i) => ({ text, process: lines[i]!.process }));
      expect(normalizeStdout(again, opts)).toEqual(once);
      // One expect per case: Playwright's expect is too slow to call per line in a 300-case property.
      const leaks = once.filter(
        (line) =>
          Object.values(opts.roots).some((dir) => line.includes(`${dir}/`)) ||
          /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/.test(line),
      );
      expect(leaks, 'lines still holding a root path or an ISO time').toEqual([]);
      for (const line of once) JSON.parse(line); // every normalized line is JSON
    }),
    { numRuns: 300 },
  );
});

test('normalizeJsonlText: any JSONL text normalizes idempotently and keeps its trailing newline', () => {
  fc.assert(
    fc.property(stdout, fc.boolean(), ({ opts, lines }, trailing) => {
      const text = lines.map((l) => l.text).join('\n') + (trailing && lines.length ? '\n' : '');
      const once = normalizeJsonlText(text, opts);
      expect(normalizeJsonlText(once, opts)).toBe(once);
      expect(once.endsWith('\n')).toBe(trailing && lines.length > 0);
      expect(once.split('\n').length).toBe(text.split('\n').length);
    }),
    { numRuns: 300 },
  );
});

test(`values nested up to ${MAX_NORMALIZE_DEPTH} levels normalize; deeper ones fail with a NormalizeError naming the line`, () => {
  // MAX_NORMALIZE_DEPTH containers in all: 999 wrappers around the object holding the session id.
  const ok = deepJsonText(MAX_NORMALIZE_DEPTH - 1, 'object').replace('0', '{"sessionId":"s-123456"}');
  const tooDeep = deepJsonText(MAX_NORMALIZE_DEPTH + 1, 'array');
  const out = normalizeStdout([{ text: ok, process: 0 }]);
  expect(out[0]).toContain('"sessionId":"{{sessionId:1}}"');
  expect(normalizeStdout([{ text: out[0]!, process: 0 }])).toEqual(out);
  expect(() =>
    normalizeStdout([
      { text: ok, process: 0 },
      { text: tooDeep, process: 1 },
    ]),
  ).toThrow(
    new NormalizeError(
      `stdout line 2 (agent process 2): JSON nested deeper than ${MAX_NORMALIZE_DEPTH} levels`,
    ),
  );
  expect(() => normalizeJsonlText(`${ok}\n${tooDeep}\n`)).toThrow(/^line 2: JSON nested deeper than/);
});

test('10^4-10^5 deep values, 1-16 MB strings and non-JSON lines: a NormalizeError naming the line or a result, in bounded time and memory', async () => {
  const hostileLine = fc.oneof(
    deepHostile.map((s) => (s.kind === 'deep' ? deepJsonText(s.depth, s.shape) : '')),
    // Not a lone-surrogate piece: V8 takes seconds to (de)serialize 16 M escaped surrogates, which says
    // nothing about the normalizer (small lone surrogates are in every other case).
    hugeHostile
      .filter((s) => s.kind !== 'huge' || s.piece !== '\ud800')
      .map((s) => JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { text: buildHostile(s) } })),
    nastyString.filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    }),
  );
  await fc.assert(
    fc.asyncProperty(hostileLine, fc.nat({ max: 3 }), async (line, before) => {
      const lines = [...Array(before).fill('{"jsonrpc":"2.0","id":1,"result":{}}'), line];
      const o = await outcome(() => normalizeStdout(lines.map((text) => ({ text, process: 0 }))));
      expectParserOutcome(o, NormalizeError, [`stdout line ${before + 1} (agent process 1)`]);
      const j = await outcome(() => normalizeJsonlText(lines.join('\n')));
      expectParserOutcome(j, NormalizeError, [`line ${before + 1}:`]);
    }),
    { numRuns: 24 },
  );
});
