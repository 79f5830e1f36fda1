import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { cutPoint, cutText } from './cut.js';

/** Pieces real text is made of: emoji of every shape, CJK, Hangul, combining marks, and the pathological runs. */
const piece = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 8 }),
  fc.constantFrom(
    '😀', // one non-BMP code point
    '👍🏽', // emoji + skin tone modifier
    '👨‍👩‍👧‍👦', // ZWJ sequence
    '🏳️‍🌈', // ZWJ with a variation selector
    '🇯🇵', // flag: two regional indicators
    '1️⃣', // keycap: ASCII digit, VS16, combining keycap
    'e\u0301', // combining acute
    'a\u0308\u0323',
    '漢字',
    'かな',
    '한국어',
    '\u1100\u1161\u11a8', // conjoining jamo
    'ก\u0e31', // Thai with a combining vowel
    '\u0600' + '1', // a prepended concatenation mark joins the next character
    '\r\n',
  ),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  // Longer than the segmenter's window: cut at a code point.
  fc.integer({ min: 1, max: 100 }).map((n) => `x${'\u0301'.repeat(n)}`),
  // Runs of regional indicators pair off from their start, however long.
  fc.array(fc.constantFrom('🇦', '🇧', '🇨'), { minLength: 1, maxLength: 60 }).map((a) => a.join('')),
);
const mixedText = fc.array(piece, { maxLength: 24 }).map((a) => a.join(''));

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Every grapheme boundary of `text`, by segmenting all of it. */
function boundaries(text: string): number[] {
  return [0, ...[...segmenter.segment(text)].map((s) => s.index + s.segment.length)];
}

/**
 * What is wrong with cutting `text` at `max`, if anything. Plain checks, not `expect`: Playwright records
 * every `expect` call, and this runs for every budget of hundreds of strings.
 */
function cutProblem(text: string, max: number, bounds: number[]): string | undefined {
  const cut = cutText(text, max);
  if (!cut.isWellFormed()) return 'not well-formed';
  if (!text.startsWith(cut)) return 'not a prefix';
  if (cut.length > max) return `over the budget (${cut.length})`;
  if (max >= text.length) return cut === text ? undefined : 'shortened a text within budget';
  // ASCII on both sides is cut as slice cuts it (CR LF included); a cluster longer than the window at a
  // code point or its start; any other cluster is kept whole or left out whole.
  const last = bounds.findLast((b) => b <= max) ?? 0;
  const next = bounds.find((b) => b > max) ?? text.length;
  if (text.charCodeAt(max - 1) < 0x80 && text.charCodeAt(max) < 0x80)
    return cut.length === max ? undefined : `ASCII cut at ${cut.length}`;
  if (next - last <= 32) return cut.length === last ? undefined : `cut at ${cut.length}, not at ${last}`;
  return cut.length >= last ? undefined : `cut at ${cut.length}, before the boundary ${last}`;
}

test('cutText: for every budget the cut is a well-formed prefix within budget, at the last grapheme boundary', () => {
  fc.assert(
    fc.property(mixedText, (text) => {
      const bounds = boundaries(text);
      for (let max = 0; max <= text.length + 1; max++) {
        const problem = cutProblem(text, max, bounds);
        if (problem) throw new Error(`budget ${max}: ${problem}`);
      }
    }),
    { numRuns: 500 },
  );
});

test('cutText: ASCII text is cut exactly where slice cuts it', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary-ascii', maxLength: 80 }),
      fc.nat(90),
      (text, max) => cutText(text, max) === text.slice(0, max),
    ),
  );
});

test('cutText: examples at the cut', () => {
  expect(cutText('ab😀cd', 3)).toBe('ab');
  expect(cutText('ab😀cd', 4)).toBe('ab😀');
  expect(cutText('go 👨‍👩‍👧‍👦 now', 8)).toBe('go ');
  expect(cutText('🇯🇵🇺🇸', 6)).toBe('🇯🇵');
  expect(cutText('cafe\u0301!', 4)).toBe('caf');
  expect(cutText('漢字かな', 3)).toBe('漢字か');
  expect(cutText('plain ascii', 5)).toBe('plain');
  expect(cutPoint('x', -1)).toBe(0);
});

test('cutPoint: a flag run cut far from its start still pairs the indicators from the start', () => {
  const flags = '🇦🇧'.repeat(50); // 200 code units, longer than the window
  for (let max = 0; max <= flags.length; max++) expect(cutPoint(flags, max)).toBe(max - (max % 4));
  expect(cutPoint(`x${flags}`, 103)).toBe(101);
});
