import { expect, test } from '@playwright/test';
import { formatReplayReport, parseReplayReport, REPLAY_LINE_PREFIX } from './contract.js';

test('a replay report line reads back as the report the plugin wrote', () => {
  const report = { scenario: 'hello', consumed: [1, 3], total: 3 };
  const line = formatReplayReport(report);
  expect(line).toBe('llm-replay: {"scenario":"hello","consumed":[1,3],"total":3}');
  expect(parseReplayReport(line)).toEqual(report);
});

test('a report with the drift that stopped the process reads back with it, text that breaks lines included', () => {
  const drift = { part: 'system', path: 'system', recorded: 'Be brief.\n', live: 'Be short.\n' };
  const report = { scenario: 'hello', consumed: [1], total: 2, drift };
  const line = formatReplayReport(report);
  expect(line.split('\n')).toHaveLength(1);
  expect(parseReplayReport(line)).toEqual(report);
  // Absent texts stay absent (the recording did not hold the part); a drift without a part is none.
  const bare = { scenario: 'hello', consumed: [], total: 1, drift: { part: 'model', path: 'model' } };
  expect(parseReplayReport(formatReplayReport(bare))).toEqual(bare);
  expect(parseReplayReport(`${REPLAY_LINE_PREFIX}{"consumed":[],"total":1,"drift":{"path":"x"}}`)).toEqual({
    scenario: '',
    consumed: [],
    total: 1,
  });
});

test('other plugin lines (errors, warnings, diffs) are not reports', () => {
  for (const line of [
    `${REPLAY_LINE_PREFIX}ReplayDriftError: scenario "hello": model call 1 of 1 ...`,
    `${REPLAY_LINE_PREFIX}warning: fixture.jsonl: a torn last line was dropped`,
    `${REPLAY_LINE_PREFIX}{"consumed":"1"}`,
    `${REPLAY_LINE_PREFIX}null`,
    'acp-snapshot-agent: session sess-1 created',
  ])
    expect(parseReplayReport(line), line).toBeUndefined();
});
