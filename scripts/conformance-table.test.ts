// docs/conformance.md's conformance table is what scripts/conformance-table.mjs makes of the kept runs, and a failed
// check shows in it with what the kit saw.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import {
  END,
  RESULTS_DIR,
  readRuns,
  renderTable,
  renderV2Table,
  START,
  TABLE_DOC,
  trimReport,
  V2_END,
  V2_RESULTS_DIR,
  V2_START,
  withTable,
  // @ts-expect-error: a plain .mjs script without type declarations
} from './conformance-table.mjs';
// @ts-expect-error: a plain .mjs script without type declarations
import { withSection } from './generated-section.mjs';

test("docs/conformance.md's conformance table is generated from docs/conformance/*.json", () => {
  const text = readFileSync(TABLE_DOC, 'utf8');
  expect(text.slice(text.indexOf(START), text.indexOf(END) + END.length)).toBe(
    withTable(`${START}${END}`, renderTable(readRuns(RESULTS_DIR), readRuns(V2_RESULTS_DIR))),
  );
  expect(text.slice(text.indexOf(V2_START), text.indexOf(V2_END) + V2_END.length)).toBe(
    withSection(
      `${V2_START}${V2_END}`,
      { start: V2_START, end: V2_END, file: 'docs/conformance.md' },
      renderV2Table(readRuns(V2_RESULTS_DIR)),
    ),
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
    '| some | some-agent 1.2.3 | `targets/some.ts` | 2026-12-02 | 1/2 | 0 / 0 / 1 | 1/1 | `a.two` | not run |',
    '',
    'What the kit saw in each failed check:',
    '',
    '- some, `a.two` (mandatory): got \\| 2',
  ]);
  expect(() => withTable('no markers here', 'x')).toThrow(/docs\/conformance.md: the markers .* are missing/);
});

test('a v2 run: a v1-only agent is v1-only in every cell, a v2 agent pass or fail per check with its details', () => {
  const v1only = trimReport(
    {
      protocol: 2,
      v1Only: 1,
      agentInfo: { name: 'old-agent', version: '1' },
      results: [
        { id: 'v2.negotiation', level: 'mandatory', status: 'skip', detail: 'v1-only: answered 1' },
        { id: 'v2.cancel', level: 'mandatory', status: 'skip', detail: 'v1-only: answered 1' },
      ],
    },
    { name: 'old', date: '2026-12-05' },
  );
  const v2 = trimReport(
    {
      protocol: 2,
      agentInfo: { name: 'new-agent', version: '2' },
      results: [
        { id: 'v2.negotiation', level: 'mandatory', status: 'pass', detail: 'protocolVersion 2' },
        { id: 'v2.cancel', level: 'mandatory', status: 'fail', detail: 'stopReason "end_turn"' },
      ],
    },
    { name: 'new', date: '2026-12-05' },
  );
  expect(v1only).toMatchObject({ protocol: 2, v1Only: 1 });
  expect(renderV2Table([v2, v1only]).split('\n')).toEqual([
    '| v2 check | level | new | old |',
    '| --- | --- | --- | --- |',
    '| `v2.negotiation` | mandatory | pass | v1-only |',
    '| `v2.cancel` | mandatory | **fail** | v1-only |',
    '',
    'What the kit saw in each failed v2 check:',
    '',
    '- new, `v2.cancel` (mandatory): stopReason "end_turn"',
  ]);
  const v1 = (name: string) => trimReport({ results: [] }, { name, date: '2026-12-02' });
  const cells = (renderTable([v1('new'), v1('old')], [v2, v1only]) as string)
    .split('\n')
    .slice(2, 4)
    .map((row) => row.split(' | ').at(-1));
  expect(cells).toEqual(['mandatory 1/2, capability 0/0; fails `v2.cancel` |', 'v1-only (answered 1) |']);
});
