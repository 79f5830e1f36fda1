import { expect, test } from '@playwright/test';
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
