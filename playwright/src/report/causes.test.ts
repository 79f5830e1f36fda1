import type { ReplayDrift } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import { acceptCommand, addCause, type Group, summarize } from './cause-summary.js';
import { driftCause, headerPromptCause, jsonLinesCause, perTestDriftText, workspaceCause } from './causes.js';

const driftText = (scenario: string, hunk: string) => [
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

// The system prompt of two scenarios (each names its own cwd) with the same edit made to both.
const system = (cwd: string, word: string) =>
  `You work in ${cwd}.\nRules:\n- Read before you write.\n- Make the ${word} change.\n- Say what you did.\n`;
const systemDrift = (cwd: string): ReplayDrift => ({
  part: 'system',
  path: 'system',
  recorded: system(cwd, 'smallest'),
  live: system(cwd, 'minimal'),
});

test('one system-prompt change is one cause in every scenario, in a drift and in a header-only log', () => {
  const a = driftCause(systemDrift('{{cwd}}/hello'));
  const b = driftCause(systemDrift('{{cwd}}/read-file'));
  expect(a.key).toBe(b.key);
  expect(a.detail).toContain('~- Make the [-smallest-]{+minimal+} change.');
  const header = headerPromptCause('A\n- Make the smallest change.\n', 'A\n- Make the minimal change.\n');
  expect(header.key).toBe(a.key);
});

test('a message or tool drift is keyed by where and what changed, not by the scenario; one with no recorded text by its live text', () => {
  const message = (text: string, word: string): ReplayDrift => ({
    part: 'messages[2]',
    path: 'messages[2].content',
    recorded: `${text}\n[exit code: 0]`,
    live: `${text}\n[exit ${word}: 0]`,
  });
  const one = driftCause(message('hello.txt', 'status'));
  expect(driftCause(message('a much longer listing of files', 'status')).key).toBe(one.key);
  expect(driftCause(message('hello.txt', 'value')).key).not.toBe(one.key);
  expect(one.detail).toBe(
    "the model request's messages[2].content changed: hello.txt\n[exit [-code-]{+status+}: 0]",
  );
  const model = driftCause({ part: 'model', path: 'model', live: 'deepseek-reasoner' });
  expect(model.detail).toBe(
    "the model request's model changed (the recording does not hold its text): live deepseek-reasoner",
  );
  expect(driftCause({ part: 'model', path: 'model', live: 'other' }).key).not.toBe(model.key);
});

test('a drift inside a JSON value (a tool schema, a tool call) is the field that changed in it, as the differ finds it', () => {
  const tools = (description: string, cwd: string) =>
    `${JSON.stringify(
      [
        { name: 'bash', description: `Run a command in ${cwd}.`, parameters: { type: 'object' } },
        { name: 'read_file', description, parameters: { type: 'object' } },
      ],
      null,
      2,
    )}\n`;
  const drift = (cwd: string): ReplayDrift => ({
    part: 'tools',
    path: 'tools',
    recorded: tools('Read a file.', cwd),
    live: tools('Read a text file.', cwd),
  });
  const cause = driftCause(drift('{{cwd}}'));
  expect(cause.detail).toBe("the model request's tools[1].description changed: Read a {+text +}file.");
  // The same edit where the other tools differ by scenario is the same cause.
  expect(driftCause(drift('{{cwd}}/other')).key).toBe(cause.key);
  // A tool call's arguments, from the HTTP model (a body path): the field inside the JSON it carries.
  const call = driftCause({
    part: 'messages[2]',
    path: 'body.messages[2].tool_calls',
    recorded: JSON.stringify([{ id: 'c1', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }]),
    live: JSON.stringify([{ id: 'c1', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } }]),
  });
  expect(call.detail).toBe(
    'the model request\'s body.messages[2].tool_calls[0].function.arguments changed: {"path":"[-a-]{+b+}.txt"}',
  );
});

test("each project kind is told its own command: the corpus scripts, a spec project's snapshots, its record twin", () => {
  const stdout = jsonLinesCause('stdout', '{"a":"x"}', '{"a":"y"}')!;
  const request = driftCause({
    part: 'messages[1]',
    path: 'body.messages[1].content',
    recorded: 'a',
    live: 'b',
  });
  // A corpus scenario: the npm scripts.
  expect(acceptCommand(stdout.kind, ['bash-spill'], false)).toBe(
    'npm run test:snapshot:update -- -g bash-spill',
  );
  expect(acceptCommand(request.kind, ['hello'], false)).toBe('npm run refresh -- hello');
  // A spec project's tests: Playwright's own flag for its snapshots, by title (escaped, quoted for the shell).
  expect(acceptCommand('stdout', ["the agent's (first) answer"], false, { name: 'qwen-code' })).toBe(
    "npx playwright test --project=qwen-code --update-snapshots -g 'the agent'\\''s \\(first\\) answer'",
  );
  // A changed model request: its record twin re-records the tests' model calls.
  const http = { name: 'qwen-code', record: 'qwen-code:record', model: 'http' as const };
  expect(acceptCommand('request', ['a plain answer', 'a tool call'], false, http)).toBe(
    "npx playwright test --project=qwen-code:record -g '(a plain answer|a tool call)' (with the upstream's URL and key in the environment)",
  );
  const many = 'abcdefgh'.split('');
  expect(acceptCommand('stdout', many, false, http)).toBe(
    'npx playwright test --project=qwen-code --update-snapshots',
  );
  // Without a twin: the project's own record mode; a replayed session log is recorded again by its agent.
  expect(acceptCommand('request', ['t'], false, { name: 'p', model: 'http' })).toBe(
    "set use.model.record = 'missing' (or 'all') and its upstream for these tests, then run: npx playwright test --project=p -g 't'",
  );
  expect(acceptCommand('request', ['t'], false, { name: 'ours', model: 'replay' })).toBe(
    "record the session log its model replays again (the agent against a live model), then run: npx playwright test --project=ours -g 't'",
  );
  // One cause in two projects is a block each, with each project's command.
  const groups = new Map<string, Group>();
  addCause(groups, 'a plain answer', { ...request, project: http });
  addCause(groups, 'a tool call', { ...request, project: http });
  addCause(groups, 'a plain answer', { ...request, project: { name: 'qwen-code-v2', model: 'http' } });
  addCause(groups, 'hello', request);
  const text = summarize([...groups.values()], 10);
  expect(text).toContain('acp-snapshot: 3 failing scenario(s), 3 cause(s):');
  expect(text).toContain(
    "1. 2 tests of project qwen-code: the model request's body.messages[1].content changed: [-a-]{+b+}",
  );
  expect(text).toContain('   tests: a plain answer, a tool call');
  expect(text).toContain("--project=qwen-code:record -g '(a plain answer|a tool call)'");
  expect(text).toContain("--project=qwen-code-v2 -g 'a plain answer'");
  expect(text).toContain('   scenarios: hello\n   if intended, accept it with: npm run refresh -- hello');
});

test('one failing test shows a shared system-prompt change by its changed words only', () => {
  const text = perTestDriftText(driftText('hello', HUNK).join('\n'), systemDrift('{{cwd}}'));
  expect(text.split('\n')).toEqual([
    driftText('hello', HUNK)[0],
    '  the system prompt changed (changed words; the hunk is in the summary at the end of the run, the full diff in stderr.txt):',
    '    ~- Make the [-smallest-]{+minimal+} change.',
  ]);
  // Any other drift, or one the report did not carry, as the replay plugin wrote it.
  expect(perTestDriftText('other text', undefined)).toBe('other text');
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
  const cause = driftCause(systemDrift('{{cwd}}'));
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
