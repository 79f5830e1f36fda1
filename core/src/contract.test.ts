import { expect, test } from '@playwright/test';
import { formatReplayReport, parseReplayReport, REPLAY_LINE_PREFIX } from './contract.js';

test('a replay report line reads back as the report the plugin wrote', () => {
  const report = { scenario: 'hello', consumed: [1, 3], total: 3 };
  const line = formatReplayReport(report);
  expect(line).toBe('llm-replay: {"scenario":"hello","consumed":[1,3],"total":3}');
  expect(parseReplayReport(line)).toEqual(report);
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
