import { expect, test } from '@playwright/test';
import { importCycles } from './import-cycles.js';

test('the cycle check finds a cycle of two, of three, a self-import, and nothing in a chain', () => {
  const g = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
  expect(importCycles(g({ a: ['b'], b: ['a'], c: ['a'] }))).toEqual([['a', 'b']]);
  expect(importCycles(g({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual([['a', 'b', 'c']]);
  expect(importCycles(g({ a: ['a'] }))).toEqual([['a']]);
  expect(importCycles(g({ a: ['b'], b: ['c'], c: [] }))).toEqual([]);
});
