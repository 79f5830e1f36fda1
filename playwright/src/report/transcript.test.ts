import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { fixturesDir } from '../scenario/corpus.js';
import { firstTranscriptDifference, logTranscript, stdoutTranscript, transcriptDiff } from './transcript.js';

const fixture = (name: string, file: string) =>
  readFileSync(join(fixturesDir(), 'scenarios', name, file), 'utf8');
const jsonl = (...values: unknown[]) => values.map((v) => `${JSON.stringify(v)}\n`).join('');
const update = (u: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: '{{sessionId:1}}', update: u },
});
const chunk = (kind: string, text: string) =>
  update({ sessionUpdate: kind, content: { type: 'text', text } });

test('a stdout transcript coalesces streamed chunks and names responses by what they answer', () => {
  expect(stdoutTranscript(fixture('hello', 'stdout.expected.jsonl'))).toEqual([
    'initialize → protocol 1, acp-snapshot-agent 0.1.0',
    'session/new → {{sessionId:1}} (mode=ask, model=deepseek-chat)',
    'agent: Hello! Nice to meet you.',
    'stop: end_turn',
  ]);
});

test('a stdout transcript has one line per message, tool call, permission and fs request, update, and error', () => {
  const text = jsonl(
    chunk('user_message_chunk', 'Fix it.'),
    chunk('agent_thought_chunk', 'Read first'),
    chunk('agent_thought_chunk', ', then edit.'),
    chunk('agent_message_chunk', 'Reading\n'),
    chunk('agent_message_chunk', '{{cwd[0:4]}}'),
    chunk('agent_message_chunk', '{{cwd[4:]}}/a.txt'),
    update({
      sessionUpdate: 'tool_call',
      toolCallId: 'call_0',
      title: 'Edit {{cwd}}/a.txt',
      kind: 'edit',
      status: 'pending',
      rawInput: { path: '{{cwd}}/a.txt' },
    }),
    {
      jsonrpc: '2.0',
      id: '{{id:3}}',
      method: 'session/request_permission',
      params: {
        sessionId: '{{sessionId:1}}',
        toolCall: { toolCallId: 'call_0', title: 'Edit {{cwd}}/a.txt' },
        options: [{ optionId: 'allow_once' }, { optionId: 'reject_once' }],
      },
    },
    {
      jsonrpc: '2.0',
      id: '{{id:4}}',
      method: 'fs/write_text_file',
      params: { sessionId: '{{sessionId:1}}', path: '{{cwd}}/a.txt', content: 'new\ntext' },
    },
    update({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_0',
      status: 'completed',
      content: [
        { type: 'content', content: { type: 'text', text: 'Edited a.txt.' } },
        { type: 'diff', path: '{{cwd}}/a.txt', oldText: 'old', newText: 'new' },
      ],
    }),
    update({ sessionUpdate: 'plan', entries: [{ status: 'pending', content: 'ship' }] }),
    update({ sessionUpdate: 'current_mode_update', currentModeId: 'ask' }),
    update({
      sessionUpdate: 'available_commands_update',
      availableCommands: [{ name: 'init', description: 'Start' }],
    }),
    { jsonrpc: '2.0', id: '{{id:5}}', error: { code: -32603, message: 'model provider error' } },
    { jsonrpc: '2.0', id: '{{id:6}}', result: {} },
  );
  expect(stdoutTranscript(`${text}not json\n`)).toEqual([
    'user: Fix it.',
    'agent (thinking): Read first, then edit.',
    'agent: Reading⏎{{cwd}}/a.txt',
    'edit · Edit {{cwd}}/a.txt — pending: input: {"path":"{{cwd}}/a.txt"}',
    'permission asked: Edit {{cwd}}/a.txt: options: allow_once, reject_once',
    'fs/write_text_file {{cwd}}/a.txt: new⏎text',
    // The tool's updates after the permission question: a block of their own, its diff as a reviewer reads it.
    'edit · Edit {{cwd}}/a.txt — pending → completed: Edited a.txt.⏎diff {{cwd}}/a.txt⏎@@ -1,1 +1,1 @@⏎-old⏎\\ No newline at end of file⏎+new⏎\\ No newline at end of file',
    'plan: [pending] ship',
    'mode is now ask',
    'available commands update: {"availableCommands":[{"name":"init","description":"Start"}]}',
    'response → error -32603: model provider error',
    'response → ok',
    'not JSON on stdout: not json',
  ]);
});

test('a log transcript shows the turn: header, messages, model calls, tools, permission and the end', () => {
  expect(logTranscript(fixture('edit-allowed', 'session.jsonl'))).toEqual([
    'session sess-1: acp-snapshot-agent 0.1.0, openai-compatible deepseek-chat, cwd {{cwd}}',
    'system prompt: sidecar ae3afe1b4199',
    'tools: sidecar ae52f2f8b42e',
    expect.stringMatching(/^config: \{"params":\{"temperature":0,/),
    'turn 1',
    'user: In greeting.py, make the greeting say "Hello, ACP" instead of "Hello, world".',
    '→ model call turn 1 step 1 (turn), request 7d247316922753fe',
    'model tool call call_0 read_file: {"path":"{{cwd}}/greeting.py"}',
    'model finish: tool_calls (1232 prompt + 15 completion tokens)',
    'assistant tool call call_0 read_file: {"path":"{{cwd}}/greeting.py"}',
    'tool call call_0 read_file: {"path":"{{cwd}}/greeting.py"}',
    expect.stringMatching(/^tool result call_0 completed: "1\\tdef greeting\(\) -> str:⏎2\\t/),
    expect.stringMatching(/^tool message call_0: "1\\tdef greeting/),
    '→ model call turn 1 step 2 (turn), request d6560dcf44e75a9d',
    "model: I'll change the returned string.",
    expect.stringMatching(
      /^model tool call call_1 edit_file: \{"path":"\{\{cwd\}\}\/greeting.py","old_string"/,
    ),
    'model finish: tool_calls (1325 prompt + 44 completion tokens)',
    "assistant: I'll change the returned string.",
    expect.stringMatching(/^assistant tool call call_1 edit_file: /),
    expect.stringMatching(/^tool call call_1 edit_file: /),
    'permission? call_1: allow_once, reject_once',
    'permission call_1: selected allow_once',
    'tool result call_1 completed: "Edited greeting.py: replaced 1 occurrence (line 2)."',
    'tool message call_1: "Edited greeting.py: replaced 1 occurrence (line 2)."',
    '→ model call turn 1 step 3 (turn), request 1cd3898bc578b6a3',
    'model: Done: greeting() in {{cwd}}/greeting.py now returns "Hello, ACP" (line 2).',
    'model finish: stop (1431 prompt + 26 completion tokens)',
    'assistant: Done: greeting() in {{cwd}}/greeting.py now returns "Hello, ACP" (line 2).',
    'turn 1 end: completed',
  ]);
});

test('a log transcript joins interleaved tool-call arguments per call, and chunk events like packed rows', () => {
  const packed = jsonl(
    {
      turn: 1,
      step: 1,
      chunks: [
        ['reasoning', 'Both files.'],
        ['tool_call_start', 0, 'call_0', 'read_file'],
        ['tool_call_start', 1, 'call_1', 'read_file'],
        ['tool_call_args', 0, '{"path":"a'],
        ['tool_call_args', 1, '{"path":"b'],
        ['tool_call_args', 0, '"}'],
        ['tool_call_args', 1, '"}'],
        ['finish', 'tool_calls'],
      ],
    },
    { event: { type: 'turn/end', turn: 1, kind: 'error', error: { message: 'boom', code: 'x' } } },
  );
  expect(logTranscript(packed)).toEqual([
    'model thought: Both files.',
    'model tool call call_0 read_file: {"path":"a"}',
    'model tool call call_1 read_file: {"path":"b"}',
    'model finish: tool_calls',
    'turn 1 end: error (x): boom',
  ]);
  const events = jsonl(
    {
      seq: 1,
      ts: 0,
      event: { type: 'assistant/chunk', turn: 2, step: 1, chunk: { type: 'text', text: 'He' } },
    },
    {
      seq: 2,
      ts: 0,
      event: { type: 'assistant/chunk', turn: 2, step: 1, chunk: { type: 'text', text: 'y' } },
    },
    {
      seq: 3,
      ts: 0,
      event: { type: 'assistant/chunk', turn: 2, step: 2, chunk: { type: 'text', text: '!' } },
    },
    { seq: 4, ts: 0, event: { type: 'no/such-event' } },
  );
  expect(logTranscript(events)).toEqual([
    'model: Hey',
    'model: !',
    '? {"seq":4,"ts":0,"event":{"type":"no/such-event"}}',
  ]);
});

test('the first difference marks the changed words, keeps a line of context and fits the report', () => {
  const expected = [
    '← session/new: {{sessionId:1}}',
    'agent: Hello! Nice to greet you.',
    '← session/prompt: end_turn',
  ];
  const actual = [
    '← session/new: {{sessionId:1}}',
    'agent: Hello! Nice to meet you.',
    '← session/prompt: end_turn',
  ];
  expect(firstTranscriptDifference(expected, actual)).toBe(
    [
      '      ← session/new: {{sessionId:1}}',
      '    ~ agent: Hello! Nice to [-greet-]{+meet+} you.',
      '      ← session/prompt: end_turn',
    ].join('\n'),
  );
  expect(firstTranscriptDifference(expected, expected)).toBe('');
  // A change far into a long line: the excerpt starts shortly before it and stays within 100 columns.
  const long = `agent: ${'word '.repeat(60)}`;
  const shown = firstTranscriptDifference([`${long}old end`], [`${long}new end`]);
  expect(shown).toMatch(/^ {4}~ agent: …(word ){5}/);
  expect(shown).toContain('[-old-]{+new+} end');
  for (const line of shown.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  // Lines of another kind, or only on one side, are not word-diffed.
  expect(
    firstTranscriptDifference(['turn 1', 'agent: a'], ['turn 1', 'tool call_0: pending', 'agent: a']),
  ).toBe(['      turn 1', '    + tool call_0: pending', '      agent: a'].join('\n'));
});

test('a long tool line changed far into its text keeps the tool call title in view', () => {
  const tool = (word: string) =>
    `edit · Edit {{cwd}}/greeting.py — pending: input: {"path":"{{cwd}}/greeting.py","new_string":"${'x'.repeat(90)} ${word}"}`;
  const shown = firstTranscriptDifference([tool('ACP')], [tool('AXP')]);
  expect(shown).toMatch(
    /^ {4}~ edit · Edit \{\{cwd\}\}\/greeting\.py — pending: …x+ \[-ACP-\]\{\+AXP\+\}"\}$/,
  );
  expect(shown.length).toBeLessThanOrEqual(100);
});

test('a long first difference is cut, and differences further on are counted', () => {
  const a = Array.from({ length: 40 }, (_, i) => `agent: line ${i}`);
  const b = a.map((l, i) => (i < 20 || i === 35 ? `${l} changed` : l));
  const shown = firstTranscriptDifference(a, b).split('\n');
  expect(shown).toHaveLength(13);
  expect(shown[0]).toBe('    ~ agent: line 0{+ changed+}');
  expect(shown[12]).toBe('    … (9 more lines of this difference, 1 more difference further on)');
});

test('the transcript diff is a unified diff of the transcripts', () => {
  const expected = stdoutTranscript(fixture('hello', 'stdout.expected.jsonl'));
  const actual = stdoutTranscript(fixture('hello', 'stdout.expected.jsonl').replace('" meet"', '" greet"'));
  expect(transcriptDiff(expected, actual, { expected: 'stdout.expected.jsonl', actual: 'this run' })).toBe(
    [
      '--- stdout.expected.jsonl',
      '+++ this run',
      '@@ -1,4 +1,4 @@',
      ' initialize → protocol 1, acp-snapshot-agent 0.1.0',
      ' session/new → {{sessionId:1}} (mode=ask, model=deepseek-chat)',
      '-agent: Hello! Nice to meet you.',
      '+agent: Hello! Nice to greet you.',
      ' stop: end_turn',
      '',
    ].join('\n'),
  );
  expect(transcriptDiff(expected, expected, { expected: 'a', actual: 'b' })).toBe('');
});

test('a stdout transcript names the command line and cwd of a client terminal the agent creates', () => {
  const lines = stdoutTranscript(fixture('terminal-bash', 'stdout.expected.jsonl'));
  expect(lines.filter((l) => l.startsWith('terminal/'))).toEqual([
    'terminal/create $ /bin/bash -c pwd && wc -l < todo.txt: cwd {{cwd}}⏎{"outputByteLimit":20000000}',
    'terminal/wait_for_exit term-1',
    'terminal/output term-1',
    'terminal/release term-1',
  ]);
});
