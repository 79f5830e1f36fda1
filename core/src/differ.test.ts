import { expect, test } from '@playwright/test';
import {
  firstDifference,
  firstDifferingChar,
  formatPath,
  jsonPointer,
  textWindow,
  valueDifferences,
} from './differ.js';

test('the first difference is the first in document order, with both values and the count of all', () => {
  const recorded = {
    model: 'm',
    messages: [
      { role: 'user', content: 'read notes.txt' },
      { role: 'tool', content: 'port = 8080' },
    ],
    stream: true,
  };
  const live = {
    model: 'm',
    messages: [
      { role: 'user', content: 'read notes.md' },
      { role: 'tool', content: 'port = 9090' },
    ],
    stream: false,
  };
  expect(firstDifference(recorded, live)).toEqual({
    op: 'replace',
    at: ['messages', 0, 'content'],
    path: 'messages[0].content',
    recorded: 'read notes.txt',
    live: 'read notes.md',
    operations: 3,
  });
  expect(firstDifference(recorded, structuredClone(recorded))).toBeUndefined();
});

test('a key only one side has is placed where it stands: an added key before a later change comes first', () => {
  const d = valueDifferences({ a: 1, c: 3 }, { a: 1, b: 2, c: 4 });
  expect(d).toEqual([
    { op: 'add', at: ['b'], live: 2 },
    { op: 'replace', at: ['c'], recorded: 3, live: 4 },
  ]);
  // A longer or shorter list: each extra element is one difference, at its index.
  expect(valueDifferences([1], [1, 2, 3]).map((x) => [x.op, formatPath(x.at)])).toEqual([
    ['add', '[1]'],
    ['add', '[2]'],
  ]);
  expect(firstDifference({ tools: [{ name: 'read' }] }, { tools: [] })).toMatchObject({
    op: 'remove',
    path: 'tools[0]',
    recorded: { name: 'read' },
  });
  // An object where an array was is one replacement, not a walk through both.
  expect(valueDifferences({ x: [1] }, { x: { 0: 1 } })).toEqual([
    { op: 'replace', at: ['x'], recorded: [1], live: { 0: 1 } },
  ]);
});

test('paths read as JSON paths and JSON Pointers; a key that is not a name is quoted', () => {
  expect(formatPath(['headers', 'anthropic-beta'])).toBe('headers.anthropic-beta');
  expect(formatPath(['body', 'a b', 2])).toBe('body["a b"][2]');
  expect(formatPath([])).toBe('(root)');
  expect(jsonPointer(['params', 'a/b', 0, 'x~y'])).toBe('/params/a~1b/0/x~0y');
});

test('a text window around the first differing character never cuts an emoji or opens inside a placeholder', () => {
  expect(firstDifferingChar('abc', 'abd')).toBe(2);
  expect(firstDifferingChar('abc', 'abc')).toBe(-1);
  expect(firstDifferingChar('ab', 'abc')).toBe(2);
  const text = `${'x'.repeat(38)}😀${'y'.repeat(50)}`;
  // 40 characters before 41 would start inside the emoji's surrogate pair: the window starts after it.
  expect(textWindow(text, 80, 41, 5)).not.toMatch(/\\ud83d|\\ude00/);
  const withRoot = `Read {{cwd}}/src/a.ts and fix the bug`;
  expect(textWindow(withRoot, 20, 12, 10)).toBe('…"{{cwd}}/src/a.ts and fix "…');
});
