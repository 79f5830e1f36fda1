import { expect, test } from '@playwright/test';
import { applyPatch } from 'diff';
import fc from 'fast-check';
import { firstDifferingLine, unifiedDiff } from './diff.js';

test('equal texts give no diff', () => {
  expect(unifiedDiff('a\nb\n', 'a\nb\n')).toBe('');
  expect(firstDifferingLine('a\n', 'a\n')).toBeUndefined();
});

test('a changed line inside context is one hunk', () => {
  const a = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n';
  const b = 'l1\nl2\nl3\nl4\nX5\nl6\nl7\nl8\n';
  expect(unifiedDiff(a, b)).toBe(
    '--- expected\n+++ actual\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+X5\n l6\n l7\n l8\n',
  );
  expect(firstDifferingLine(a, b)).toBe(5);
});

test('insertions, deletions and distant changes make separate hunks', () => {
  const a = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].join('\n');
  const b = ['a', 'B', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].join('\n');
  expect(unifiedDiff(`${a}\n`, `${b}\n`, { expected: 'session.jsonl', actual: 'replay' }, 1)).toBe(
    [
      '--- session.jsonl',
      '+++ replay',
      '@@ -1,3 +1,3 @@',
      ' a',
      '-b',
      '+B',
      ' c',
      '@@ -11,1 +11,2 @@',
      ' k',
      '+l',
      '',
    ].join('\n'),
  );
  expect(unifiedDiff('', 'x\n')).toBe('--- expected\n+++ actual\n@@ -0,0 +1,1 @@\n+x\n');
  expect(firstDifferingLine('a\n', 'a\nb\n')).toBe(2);
});

test('a missing final newline is marked the way patch tools read it', () => {
  expect(unifiedDiff('a\nb', 'a\nc')).toBe(
    '--- expected\n+++ actual\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n',
  );
});

test('every diff, also one too large to search, turns the expected text into the actual one', () => {
  const line = fc.constantFrom('a', 'b', 'c', '{"x":1}', '');
  fc.assert(
    fc.property(fc.array(line, { maxLength: 30 }), fc.array(line, { maxLength: 30 }), (a, b) => {
      const [x, y] = [a.map((l) => `${l}\n`).join(''), b.map((l) => `${l}\n`).join('')];
      if (x === y) return;
      expect(applyPatch(x, unifiedDiff(x, y))).toBe(y);
    }),
  );
  // Searched, this rewrite would take minutes (past the test's timeout); it is replaced wholesale.
  const n = 20_000;
  const a = Array.from({ length: n }, (_, i) => `{"line":${i},"v":"a"}\n`).join('');
  const b = `head\n${Array.from({ length: n }, (_, i) => `{"line":${i},"v":"b"}\n`).join('')}`;
  const diff = unifiedDiff(a, b);
  expect(diff.split('\n').slice(0, 3)).toEqual(['--- expected', '+++ actual', `@@ -1,${n} +1,${n + 1} @@`]);
  expect(applyPatch(a, diff)).toBe(b);
});
