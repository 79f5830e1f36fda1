import { expect, test } from '@playwright/test';
import { functionLengths } from './longest-functions.js';

test('each function is measured from its first token to its closing brace, nested ones inside their outer one', () => {
  const text = [
    'export function outer(a: number) {', // 1
    '  const inner = (b: number) => {', // 2
    '    return a + b;', // 3
    '  };', // 4
    '  return inner(1);', // 5
    '}', // 6
    'class Box {', // 7
    '  constructor(private v: number) {}', // 8
    '  get value() {', // 9
    '    return this.v;', // 10
    '  }', // 11
    '}', // 12
    'const table = { pick(x: string) { return x; } };', // 13
    '[1].map(function (n) {', // 14
    '  return n;', // 15
    '});', // 16
    'declare function bodiless(): void;', // 17
  ].join('\n');
  expect(functionLengths('a.ts', text)).toEqual([
    { file: 'a.ts', line: 1, lines: 6, name: 'outer' },
    { file: 'a.ts', line: 2, lines: 3, name: 'inner' },
    { file: 'a.ts', line: 8, lines: 1, name: 'Box.constructor' },
    { file: 'a.ts', line: 9, lines: 3, name: 'Box.value' },
    { file: 'a.ts', line: 13, lines: 1, name: 'pick' },
    { file: 'a.ts', line: 14, lines: 3, name: '<callback of [1].map>' },
  ]);
});
