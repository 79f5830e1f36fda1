import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { DriverError } from '../driver/driver.js';
import type { TestRoots } from '../roots/roots.js';
import { fixturesDir } from '../scenario/corpus.js';
import {
  attachFailureArtifacts,
  comparedLogs,
  driverFailureArtifacts,
  firstEventPatch,
  nonJsonLines,
  replayFailures,
  sessionLogExpect,
  stdoutMismatchMessage,
  stdoutSnapshotText,
  unionReplayReports,
  unusedCallsProblem,
  unusedRecordedCalls,
} from './compare.js';
import { adoptRecordedProvider } from './harvest.js';

const roots: TestRoots = {
  root: '/tmp/acp-snap-00000000-aaaaaa',
  cwd: '/tmp/acp-snap-00000000-aaaaaa/work',
  persistRoot: '/tmp/acp-snap-00000000-aaaaaa/persist',
  spillRoot: '/tmp/acp-snap-00000000-aaaaaa/spill',
  home: '/tmp/acp-snap-00000000-aaaaaa/home',
  aliases: {},
};

test('stdout snapshot text is normalized JSON lines ending with a newline', () => {
  const text = stdoutSnapshotText(
    {
      stdout: [
        { text: '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s-1"}}', process: 0 },
        { text: `{"jsonrpc":"2.0","method":"m","params":{"cwd":"${roots.cwd}/x"}}`, process: 0 },
      ],
    },
    roots,
  );
  expect(text).toBe(
    '{"jsonrpc":"2.0","id":"{{id:1}}","result":{"sessionId":"{{sessionId:1}}"}}\n{"jsonrpc":"2.0","method":"m","params":{"cwd":"{{cwd}}/x"}}\n',
  );
  expect(stdoutSnapshotText({ stdout: [] }, roots)).toBe('');
  expect(nonJsonLines(text)).toEqual([]);
  expect(nonJsonLines('{}\nnot json\n{"a":1}\n')).toEqual(['line 2: "not json"']);
});

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

test('the JSON Patch covers the first differing event only', () => {
  const a = '{"type":"a"}\n{"type":"turn/end","kind":"completed"}\n{"x":1}\n';
  const b = '{"type":"a"}\n{"type":"turn/end","kind":"error","error":{"message":"m"}}\n{"x":2}\n';
  expect(firstEventPatch(a, b)).toEqual({
    line: 2,
    patch: [
      { op: 'replace', path: '/kind', value: 'error' },
      { op: 'add', path: '/error', value: { message: 'm' } },
    ],
    expected: { type: 'turn/end', kind: 'completed' },
    actual: { type: 'turn/end', kind: 'error', error: { message: 'm' } },
  });
});

test('toMatchSessionLog passes on normalized equality and explains a difference', () => {
  sessionLogExpect('{"sessionId":"abc1"}\n').toMatchSessionLog({
    text: '{"sessionId":"zzz9"}\n',
    file: 'f',
    scenario: 's',
  });
  const hello = readFileSync(join(fixturesDir(), 'scenarios', 'hello', 'session.jsonl'), 'utf8');
  let message = '';
  try {
    sessionLogExpect(hello).toMatchSessionLog({
      text: hello.replace('"content":"Hello! Nice to meet you."', '"content":"Hello! Nice to greet you."'),
      file: 'fixtures/scenarios/hello/session.jsonl',
      scenario: 'hello',
    });
  } catch (e) {
    message = (e as Error).message;
  }
  expect(message).toBe(
    [
      'The re-persisted, projected session log differs from fixtures/scenarios/hello/session.jsonl at line 6, /event/message/content:',
      '  Hello! Nice to [-greet-]{+meet+} you.',
      'In the transcript (the whole transcript diff is attached as session.transcript.diff):',
      '      model finish: stop (1219 prompt + 6 completion tokens)',
      '    ~ assistant: Hello! Nice to [-greet-]{+meet+} you.',
      '      turn 1 end: completed',
      '(the line diff, the JSON Patch of the first differing event, stdout and stderr are attached too)',
      'If the change is intended, run `npm run refresh -- hello`.',
    ].join('\n'),
  );
});

test('a stdout mismatch names the changed field, shows the transcript around it and the command', () => {
  const expected = readFileSync(join(fixturesDir(), 'scenarios', 'hello', 'stdout.expected.jsonl'), 'utf8');
  expect(stdoutMismatchMessage('hello', expected.replace('" meet"', '" greet"'), expected)).toBe(
    [
      'hello: stdout differs from stdout.expected.jsonl at line 6, /params/update/content/text:',
      '   [-greet-]{+meet+}',
      'In the transcript (the whole transcript diff is attached as stdout.transcript.diff):',
      '      ← session/new: {{sessionId:1}} (mode=ask, model=deepseek-chat)',
      '    ~ agent: Hello! Nice to [-greet-]{+meet+} you.',
      '      ← session/prompt: end_turn',
      'If the change is intended, run `npm run test:snapshot:update -- -g hello`.',
    ].join('\n'),
  );
  // A change the transcript shows in short (the agent's version) is a transcript line; one it leaves out
  // (the agent's title) still names the field, and says why no transcript line differs.
  const message = stdoutMismatchMessage(
    'hello',
    expected,
    expected.replace('"version":"0.1.0"', '"version":"0.2.0"'),
  );
  expect(message).toContain('at line 1, /result/agentInfo/version:');
  expect(message).toContain('In the transcript');
  expect(
    stdoutMismatchMessage(
      'hello',
      expected,
      expected.replace('"title":"acp-snapshot reference agent"', '"title":"x"'),
    ),
  ).toContain(
    'The transcripts agree: the change is in a detail the transcript leaves out (the field named above).',
  );
});

test('failure artifacts are attached inline', async () => {
  const testInfo = test.info();
  await attachFailureArtifacts(testInfo, {
    result: {
      stdout: [{ text: '{"x":1}', process: 0 }],
      sent: [],
      stderr: ['oops'],
      exits: [0],
      processMs: [1],
      problems: [],
    },
    expectedLog: '{"a":1}\n',
    actualLog: '{"a":2}\n',
    rawLog: '{"seq":1}\n',
  });
  const names = testInfo.attachments.map((a) => a.name);
  expect(names).toEqual([
    'session.jsonl.diff',
    'session.transcript.diff',
    'first-differing-event.line-1.patch.json',
    'stdout.raw.jsonl',
    'stderr.txt',
    'session.projected.jsonl',
    'session.raw.jsonl',
  ]);
  const patch = testInfo.attachments.find((a) => a.name.endsWith('.patch.json'))!;
  expect(JSON.parse(String(patch.body))).toEqual([{ op: 'replace', path: '/a', value: 2 }]);
  expect(String(testInfo.attachments[4]!.body)).toBe('--- agent process 1 ---\noops');
});

test('nothing the comparison accepts is attached as a difference', async () => {
  const hello = (file: string) => readFileSync(join(fixturesDir(), 'scenarios', 'hello', file), 'utf8');
  const expectedLog = hello('session.jsonl');
  // What a replay leaves: the replay plugin as provider, another session id.
  const actualLog = expectedLog
    .replace('"plugin":"openai-compatible"', '"plugin":"replay"')
    .replace('"sessionId":"sess-1"', '"sessionId":"sess-7"');
  expect(actualLog).not.toBe(expectedLog);
  sessionLogExpect(adoptRecordedProvider(actualLog, expectedLog)).toMatchSessionLog({
    text: expectedLog,
    file: 'session.jsonl',
    scenario: 'hello',
  });
  const testInfo = test.info();
  const before = testInfo.attachments.length;
  await attachFailureArtifacts(testInfo, {
    expectedLog,
    actualLog,
    expectedStdout: hello('stdout.expected.jsonl'),
    actualStdout: hello('stdout.expected.jsonl'),
  });
  expect(testInfo.attachments.slice(before).map((a) => a.name)).toEqual(['session.projected.jsonl']);
  expect(comparedLogs(expectedLog, actualLog)).toBeUndefined();
  // A real change is attached, diffed on the normalized texts: the volatile values do not show up in it.
  const changed = actualLog.replace('"content":"Hello! Nice to meet you."', '"content":"Hi."');
  await attachFailureArtifacts(testInfo, { expectedLog, actualLog: changed });
  const diff = String(testInfo.attachments.find((a) => a.name === 'session.jsonl.diff')!.body);
  expect(diff.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual([
    '-{"event":{"type":"message/committed","turn":1,"message":{"role":"assistant","content":"Hello! Nice to meet you."}}}',
    '+{"event":{"type":"message/committed","turn":1,"message":{"role":"assistant","content":"Hi."}}}',
  ]);
  const transcript = String(testInfo.attachments.find((a) => a.name === 'session.transcript.diff')!.body);
  expect(transcript).toContain('-assistant: Hello! Nice to meet you.\n+assistant: Hi.\n');
});

test('replay errors are the plugin lines other than its report, else replay errors ending a turn', () => {
  const stderr = [
    'llm-replay: request drift at turn 1 step 0: messages[2].content differs\nllm-replay:   live "hi"\nllm-replay: {"scenario":"s","consumed":[1],"total":2}\n' +
      'llm-replay: scenario s: 1 recorded model call was never made (call 2) by this agent process\nllm-replay: warning: x\n',
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
        error: { message: 'fixture exhausted at call 3', code: 'replay_exhausted' },
      },
    },
    { event: { type: 'turn/end', kind: 'error', error: { message: 'HTTP 401', code: 'provider' } } },
  ];
  expect(replayFailures([''], records)).toEqual(['fixture exhausted at call 3']);
});

test('a failed driver run attaches what it observed and the log the agent persisted before failing', async () => {
  const result = {
    stdout: [{ text: '{"y":2}', process: 0 }],
    sent: [],
    stderr: ['boom'],
    exits: [1],
    processMs: [1],
    problems: [],
  };
  const failure = Object.assign(new DriverError('agent process 1 exited (1)', result), {
    rawLog: '{"seq":0}\n',
  });
  const testInfo = test.info();
  await attachFailureArtifacts(testInfo, driverFailureArtifacts(failure));
  expect(testInfo.attachments.map((a) => [a.name, String(a.body)])).toEqual([
    ['stdout.raw.jsonl', '{"y":2}'],
    ['stderr.txt', '--- agent process 1 ---\nboom'],
    ['session.raw.jsonl', '{"seq":0}\n'],
  ]);
  expect(driverFailureArtifacts(new Error('not a driver failure'))).toEqual({});
});
