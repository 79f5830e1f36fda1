import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { dashedPath, hydrateRoots, hydrateText, parseRootsEnv, RootReplacer, replaceRoots } from './roots.js';

const R = '/tmp/acp-snap-1f2e3d4c-AbC123';
const ROOTS = {
  cwd: `${R}/work`,
  spill: `${R}/spill`,
  home: `${R}/home`,
  root: R,
  realHome: '/home/alice',
  user: 'alice',
};
const replacer = RootReplacer.of(ROOTS);

test('one boundary rule: a root is replaced as a whole path, at a sentence end, before / . - and quotes', () => {
  const cases: Array<[string, string]> = [
    [`look in ${R}/work.`, 'look in {{cwd}}.'],
    [`${R}/work/a.txt`, '{{cwd}}/a.txt'],
    [`"${R}/work"`, '"{{cwd}}"'],
    [`(${R}/work)`, '({{cwd}})'],
    [`${R}/work, then`, '{{cwd}}, then'],
    [`${R}/work...`, '{{cwd}}...'],
    [`${R}/work-2`, '{{root}}/work-2'],
    [`${R}/workspace/x`, '{{root}}/workspace/x'],
    [`${R}/work.bak`, '{{root}}/work.bak'],
    [`${R}/worké`, '{{root}}/worké'],
    [`cd .. && ls ${R}`, 'cd .. && ls {{root}}'],
    [`${R}x/work`, `${R}x/work`],
    [`/srv${R}/work`, `/srv${R}/work`],
    ['/home/alice/.cargo/bin:/usr/bin', '{{realHome}}/.cargo/bin:/usr/bin'],
    ['/home/alicex and alice wrote, alice.', '/home/alicex and {{user}} wrote, {{user}}.'],
    ['malice and alice_2 stay', 'malice and alice_2 stay'],
    ['file:///home/alice/n.txt', 'file://{{realHome}}/n.txt'],
  ];
  for (const [input, expected] of cases) expect(replacer.text(input), input).toBe(expected);
});

test('a root streamed in fragments becomes slice placeholders that hydrate back to the same fragments', () => {
  const text = `I read ${R}/work/notes.txt and ${R}/work.`;
  const parts = [text.slice(0, 10), text.slice(10, 20), text.slice(20, 47), text.slice(47)];
  const pieces = replacer.pieces(parts);
  expect(pieces).toEqual(['I read {{cwd[0:3]}}', '{{cwd[3:13]}}', '{{cwd[13:]}}/notes', '.txt and {{cwd}}.']);
  expect(pieces.map((p) => hydrateText(p, ROOTS))).toEqual(parts);
  // Another run's roots of the same length: the same fragment boundaries, this run's paths.
  const other = { ...ROOTS, cwd: '/tmp/acp-snap-1f2e3d4c-ZZZ999/work' };
  const live = pieces.map((p) => hydrateText(p, other));
  expect(live.join('')).toBe(text.split(ROOTS.cwd).join(other.cwd));
  expect(RootReplacer.of(other).pieces(live)).toEqual(pieces);
});

test("claude's dashed spelling of a directory (its project-memory path) is a root too, streamed or not", () => {
  const text = `Your notes live under ${ROOTS.home}/.claude/projects/${dashedPath(ROOTS.cwd)}/memory/ 🧠.`;
  expect(replacer.text(text)).toBe(
    'Your notes live under {{home}}/.claude/projects/{{cwdDashed}}/memory/ 🧠.',
  );
  // Streamed in two-character pieces, as a model does: slices of the dashed spelling, which hydrate back.
  const parts = Array.from({ length: Math.ceil(text.length / 2) }, (_, i) => text.slice(2 * i, 2 * i + 2));
  const pieces = replacer.pieces(parts);
  expect(pieces.join('')).toContain('{{cwdDashed[');
  expect(pieces.map((p) => hydrateText(p, ROOTS))).toEqual(parts);
  // Another run: its own dashed cwd, whatever the recording's was.
  const other = {
    ...ROOTS,
    cwd: '/tmp/acp-snap-1f2e3d4c-ZZZ999/work',
    home: '/tmp/acp-snap-1f2e3d4c-ZZZ999/home',
  };
  expect(pieces.map((p) => hydrateText(p, other)).join('')).toBe(
    `Your notes live under ${other.home}/.claude/projects/${dashedPath(other.cwd)}/memory/ 🧠.`,
  );
  // A one-segment directory has no dashed spelling: `-root` is a word, not a home.
  expect(RootReplacer.of({ realHome: '/root' }).text('run it with -root')).toBe('run it with -root');
});

test('hydration leaves unknown placeholders and numbered placeholders alone', () => {
  expect(hydrateText('{{sessionId:1}} {{nope}} {{cwd}}', ROOTS)).toBe(
    `{{sessionId:1}} {{nope}} ${ROOTS.cwd}`,
  );
  expect(hydrateRoots({ a: ['{{spill}}/x'], n: 3 }, ROOTS)).toEqual({ a: [`${ROOTS.spill}/x`], n: 3 });
});

test('replaceRoots walks values; roots shorter than two characters and "/" are ignored', () => {
  expect(replaceRoots({ a: [`${R}/home/.x`] }, ROOTS)).toEqual({ a: ['{{home}}/.x'] });
  expect(replaceRoots('/ and a', { cwd: '/', user: 'a' })).toBe('/ and a');
});

test('ACP_SNAPSHOT_ROOTS: a JSON object of names to strings; anything else names the variable', () => {
  expect(parseRootsEnv(undefined)).toEqual({});
  expect(parseRootsEnv('{"root":"/tmp/x"}')).toEqual({ root: '/tmp/x' });
  expect(() => parseRootsEnv('{')).toThrow(/ACP_SNAPSHOT_ROOTS: not JSON/);
  expect(() => parseRootsEnv('[]')).toThrow(/expected a JSON object/);
  expect(() => parseRootsEnv('{"a-b":"/x"}')).toThrow(/"a-b": a root name is letters only/);
  expect(() => parseRootsEnv('{"root":1}')).toThrow(/ACP_SNAPSHOT_ROOTS.root: expected a string/);
});

/** Generated roots of one scenario's fixed length, in two runs. */
const runRoots = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9]{6}$/), fc.stringMatching(/^[A-Za-z0-9]{6}$/))
  .map(([a, b]) => {
    const make = (s: string) => {
      const root = `/tmp/acp-snap-0a1b2c3d-${s}`;
      return {
        cwd: `${root}/work`,
        spill: `${root}/spill`,
        persist: `${root}/persist`,
        home: `${root}/home`,
        root,
      };
    };
    return [make(a), make(b)] as const;
  });

/** Text that embeds roots anywhere: sentence ends, JSON strings, followed by . - / quotes, emoji, CJK. */
const textWith = (roots: Record<string, string>) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...Object.values(roots)),
        fc.constantFrom('.', '-', '/', '"', "'", ' ', '.txt', 'x', '\n', '😀', '文件', '{"p":"', '"}', ', '),
        fc.string({ maxLength: 6 }).filter((s) => !s.includes('{{')),
      ),
      { maxLength: 12 },
    )
    .map((xs) => xs.join(''));

test('property: fragments of any split replay as the same fragments under another run of the same scenario', () => {
  fc.assert(
    fc.property(
      runRoots.chain(([a, b]) =>
        fc.tuple(fc.constant(a), fc.constant(b), textWith(a), fc.array(fc.nat(), { maxLength: 6 })),
      ),
      ([recorded, live, text, cutsRaw]) => {
        const cuts = [...new Set(cutsRaw.map((c) => c % (text.length + 1)))].sort((x, y) => x - y);
        const parts: string[] = [];
        let at = 0;
        for (const c of [...cuts, text.length]) {
          parts.push(text.slice(at, c));
          at = c;
        }
        const rec = RootReplacer.of(recorded);
        const pieces = rec.pieces(parts);
        // Recording: the fragments hydrate back to exactly what the model streamed.
        expect(pieces.map((p) => hydrateText(p, recorded))).toEqual(parts);
        // Replay: this run's fragments project to the same pieces (the fixture does not change).
        const liveParts = pieces.map((p) => hydrateText(p, live));
        expect(RootReplacer.of(live).pieces(liveParts)).toEqual(pieces);
        // The whole text: same placeholders whether it was streamed or sent whole, and idempotent.
        const whole = rec.text(text);
        expect(RootReplacer.of(live).text(liveParts.join(''))).toBe(whole);
        expect(rec.text(whole)).toBe(whole);
        expect(hydrateText(whole, recorded)).toBe(text);
      },
    ),
    { numRuns: 400 },
  );
});

test('hydrating keeps a `__proto__` key of recorded content as a key', () => {
  const recorded = JSON.parse('{"__proto__":{"path":"{{cwd}}/a"}}') as Record<string, unknown>;
  const out = hydrateRoots(recorded, ROOTS);
  expect(Object.keys(out)).toEqual(['__proto__']);
  expect(JSON.stringify(out)).toBe(`{"__proto__":{"path":"${ROOTS.cwd}/a"}}`);
});
