import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes bench-results/NAME.json and prints the figures as a table. */
export function writeResults(name: string, results: Record<string, number>): void {
  mkdirSync('bench-results', { recursive: true });
  const file = join('bench-results', `${name}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.table(Object.fromEntries(Object.entries(results).map(([k, v]) => [k, { value: v }])));
  console.log(`wrote ${file}`);
}

/** Median of a non-empty list. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
