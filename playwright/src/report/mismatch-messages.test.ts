import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { compareSurface } from '../compare/surfaces.js';
import { fixturesDir } from '../scenario/corpus.js';
import { sessionLogMismatchMessage, stdoutMismatchMessage } from './mismatch-messages.js';

test('a session log compares normalized, and a difference names the field, the transcript and the command', () => {
  // Volatile values are normalized away on both sides.
  expect(
    compareSurface('log', '{"sessionId":"zzz9"}\n', '{"sessionId":"abc1"}\n', { replayed: true }).equal,
  ).toBe(true);
  const hello = readFileSync(join(fixturesDir(), 'scenarios', 'hello', 'session.jsonl'), 'utf8');
  const log = compareSurface(
    'log',
    hello.replace('"content":"Hello! Nice to meet you."', '"content":"Hello! Nice to greet you."'),
    hello,
    { replayed: true },
  );
  expect(log.equal).toBe(false);
  const message = sessionLogMismatchMessage(
    'hello',
    'fixtures/scenarios/hello/session.jsonl',
    log.expected!,
    log.actual,
  );
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
      '      session/new → {{sessionId:1}} (mode=ask, model=deepseek-chat)',
      '    ~ agent: Hello! Nice to [-greet-]{+meet+} you.',
      '      stop: end_turn',
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
