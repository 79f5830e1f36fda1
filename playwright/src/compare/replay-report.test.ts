import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPLAY_ERROR_CODE, REPLAY_NOTE_PREFIX } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import { fixturesDir } from '../scenario/corpus.js';
import {
  replayFailures,
  unionReplayReports,
  unusedCallsProblem,
  unusedRecordedCalls,
} from './replay-report.js';

test('replay reports are unioned over processes; unused calls are named', () => {
  const report = unionReplayReports([
    'booting\nllm-replay: {"scenario":"s","consumed":[1,2],"total":4}\n',
    'llm-replay: {"scenario":"s","consumed":[3],"total":4}\n',
  ]);
  expect(report).toEqual({ consumed: [1, 2, 3], total: 4 });
  expect(unusedCallsProblem('s', report, 4)).toBe(
    's: 1 of 4 recorded model call(s) were never requested (unused calls: 4, numbered from 1). The agent now makes fewer model calls than the recording; if that is intended, run `npm run refresh -- s`.',
  );
  expect(unusedCallsProblem('s', { consumed: [1, 2], total: 2 }, 2)).toBeUndefined();
  expect(unionReplayReports(['nothing here'])).toBeUndefined();
  expect(unusedCallsProblem('s', undefined, 0)).toBeUndefined();
  expect(unusedCallsProblem('s', undefined, 2)).toMatch(
    /^s: session\.jsonl holds 2 model call\(s\) but no agent process printed/,
  );
});

test('unused recorded calls: the stderr reports against the model calls of the expected log', () => {
  const hello = readFileSync(join(fixturesDir(), 'scenarios', 'hello', 'session.jsonl'), 'utf8');
  const served = 'llm-replay: {"scenario":"hello","consumed":[1],"total":1}\n';
  expect(unusedRecordedCalls('hello', [served], hello)).toBeUndefined();
  expect(unusedRecordedCalls('hello', ['no report'], hello)).toMatch(
    /^hello: session\.jsonl holds 1 model call\(s\) but no agent process printed/,
  );
  // No expected log (not recorded yet) or a header-only one: nothing was recorded, nothing is unused.
  expect(unusedRecordedCalls('new', [], undefined)).toBeUndefined();
  expect(unusedRecordedCalls('x', [], `${hello.split('\n')[0]}\n`)).toBeUndefined();
  expect(() => unusedRecordedCalls('x', [], '{"seq":', 'x/session.jsonl')).toThrow(/x\/session\.jsonl/);
});

test('replay errors are the plugin lines other than its report, else replay errors ending a turn', () => {
  const stderr = [
    'llm-replay: request drift at turn 1 step 0: messages[2].content differs\nllm-replay:   live "hi"\nllm-replay: {"scenario":"s","consumed":[1],"total":2}\n' +
      `${REPLAY_NOTE_PREFIX}scenario s: 1 recorded model call was never made (call 2) by this agent process\n${REPLAY_NOTE_PREFIX}warning: x\n`,
  ];
  expect(replayFailures(stderr, [])).toEqual([
    'request drift at turn 1 step 0: messages[2].content differs',
    '  live "hi"',
  ]);
  const records = [
    {
      event: {
        type: 'turn/end',
        kind: 'error',
        error: { message: 'ReplayExhaustedError: fixture exhausted at call 3', code: REPLAY_ERROR_CODE },
      },
    },
    { event: { type: 'turn/end', kind: 'error', error: { message: 'HTTP 401', code: 'unauthorized' } } },
    // A provider's message that mentions replay or drift is still the provider's, not replay's.
    {
      event: {
        type: 'turn/end',
        kind: 'error',
        error: { message: 'model drift replay', code: 'bad_request' },
      },
    },
  ];
  expect(replayFailures([''], records)).toEqual(['ReplayExhaustedError: fixture exhausted at call 3']);
});
