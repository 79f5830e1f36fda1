// docs/conformance.md's conformance table is what scripts/conformance-table.mjs makes of the kept runs, and a failed
// check shows in it with what the kit saw.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
// @ts-expect-error: a plain .mjs script without type declarations
import { END, readRuns, renderTable, START, TABLE_DOC, trimReport, withTable } from './conformance-table.mjs';

test("docs/conformance.md's conformance table is generated from docs/conformance/*.json", () => {
  const text = readFileSync(TABLE_DOC, 'utf8');
  expect(text.slice(text.indexOf(START), text.indexOf(END) + END.length)).toBe(
    withTable(`${START}${END}`, renderTable(readRuns())),
  );
});

test('a run becomes a row with counts per level and its failed checks, each listed with its detail', () => {
  const report = {
    agentInfo: { name: 'some-agent', version: '1.2.3' },
    deadlineScale: 3,
    results: [
      { id: 'a.one', level: 'mandatory', status: 'pass', detail: 'ok', transcript: 'long', pids: [1] },
      { id: 'a.two', level: 'mandatory', status: 'fail', detail: 'got | 2', transcript: '', pids: [] },
      { id: 'b.one', level: 'capability', status: 'skip', detail: 'not declared', transcript: '', pids: [] },
      { id: 'c.one', level: 'advisory', status: 'pass', detail: 'ok', transcript: '', pids: [] },
    ],
  };
  const kept = trimReport(report, { name: 'some', profile: 'targets/some.ts', date: '2026-12-02' });
  expect(JSON.stringify(kept)).not.toContain('transcript');
  expect(renderTable([kept]).split('\n')).toEqual([
    expect.stringMatching(/^\| agent \|/),
    expect.stringMatching(/^\| --- \|/),
    '| some | some-agent 1.2.3 | `targets/some.ts` | 2026-12-02 | 1/2 | 0 / 0 / 1 | 1/1 | `a.two` |',
    '',
    'What the kit saw in each failed check:',
    '',
    '- some, `a.two` (mandatory): got \\| 2',
  ]);
  expect(() => withTable('no markers here', 'x')).toThrow(/docs\/conformance.md: the markers .* are missing/);
});
