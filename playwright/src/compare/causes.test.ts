import { expect, test } from '@playwright/test';
import { acceptCommand, summarize } from './cause-summary.js';
import { driftCause, headerPromptCause, jsonLinesCause, perTestDriftText, workspaceCause } from './causes.js';

const drift = (scenario: string, hunk: string) => [
  `ReplayDriftError: scenario "${scenario}": model call 1 of 2 (turn 1 step 1) sends a different request than the recording (event 4 of /x/${scenario}/session.jsonl): first differing part system`,
  '  the system prompt changed (first hunk; the full diff follows on stderr):',
  hunk,
  `If the change was intended, run \`npm run refresh -- ${scenario}\`.`,
];
const HUNK = [
  '    @@ recorded line 3, live line 3 @@',
  '    -- Make the smallest change.',
  '    +- Make the minimal change.',
  '    ~- Make the [-smallest-]{+minimal+} change.',
].join('\n');

test('one system-prompt change is one cause in every scenario, in a drift and in a header-only log', () => {
  const a = driftCause(drift('hello', HUNK))!;
  const b = driftCause(drift('read-file', HUNK))!;
  expect(a.key).toBe(b.key);
  expect(a.detail).toContain('~- Make the [-smallest-]{+minimal+} change.');
  const header = headerPromptCause('A\n- Make the smallest change.\n', 'A\n- Make the minimal change.\n');
  expect(header.key).toBe(a.key);
});

test('one failing test shows a shared system-prompt change by its changed words only', () => {
  const text = perTestDriftText(drift('hello', HUNK).join('\n'));
  expect(text.split('\n')).toEqual([
    drift('hello', HUNK)[0],
    '  the system prompt changed (changed words; the hunk is in the summary at the end of the run, the full diff in stderr.txt):',
    '    ~- Make the [-smallest-]{+minimal+} change.',
    'If the change was intended, run `npm run refresh -- hello`.',
  ]);
});

test('a stdout format change is keyed by the changed field and words, not by the scenario', () => {
  const line = (text: string, id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { update: { id, content: [{ text }] } },
    });
  const one = jsonLinesCause(
    'stdout',
    `${line('ok\n[exit code: 0]', 1)}\n`,
    `${line('ok\n[exit status: 0]', 1)}\n`,
  )!;
  const two = jsonLinesCause(
    'stdout',
    `${line('a\n[exit code: 0]', 7)}\n`,
    `${line('a\n[exit status: 0]', 7)}\n`,
  )!;
  expect(one.key).toBe(two.key);
  expect(one.detail).toBe(
    'stdout: replace at /params/update/content/*/text (first at line 1): ok\n[exit [-code-]{+status+}: 0]',
  );
  expect(workspaceCause('{"files":[]}', '{"files":[{"path":"a.txt","change":"added"}]}').detail).toBe(
    'the workspace differs in a.txt',
  );
});

test('the summary prints each cause once with the scenarios and the one command that accepts it', () => {
  const cause = driftCause(drift('hello', HUNK))!;
  const text = summarize(
    [
      { cause, scenarios: ['hello', 'read-file'] },
      { cause: jsonLinesCause('stdout', '{"a":"x"}', '{"a":"y"}')!, scenarios: ['bash-spill'] },
    ],
    10,
  );
  expect(text).toContain('acp-snapshot: 3 failing scenario(s), 2 cause(s):');
  expect(text).toContain("1. 2 scenarios: the model request's system changed:");
  expect(text).toContain('   if intended, accept it with: npm run refresh -- hello read-file');
  expect(text).toContain('   if intended, accept it with: npm run test:snapshot:update -- -g bash-spill');
  expect(acceptCommand('request', ['a', 'b'], true)).toBe('npm run refresh');
  expect(acceptCommand('request', 'abcdefgh'.split(''), false)).toBe('npm run refresh');
  expect(summarize([], 3)).toBe('');
});
