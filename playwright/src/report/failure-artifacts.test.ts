import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { compareSurface } from '../compare/surfaces.js';
import { DriverError } from '../driver/driver.js';
import { fixturesDir } from '../scenario/corpus.js';
import {
  attachFailureArtifacts,
  comparedLogs,
  driverFailureArtifacts,
  firstEventPatch,
} from './failure-artifacts.js';

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
  expect(compareSurface('log', expectedLog, actualLog, { replayed: true }).equal).toBe(true);
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
