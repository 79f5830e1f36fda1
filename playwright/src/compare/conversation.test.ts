import { expect, test } from '@playwright/test';
import { conversation, conversationHtml } from './conversation.js';

const j = (m: unknown) => JSON.stringify(m);
const up = (u: unknown) =>
  j({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: u } });
const chunk = (text: string, kind = 'agent_message_chunk') =>
  up({ sessionUpdate: kind, content: { type: 'text', text } });

/** The client's side: initialize, session/new, a prompt quoting an absolute path, and one permission answer. */
const SENT = [
  j({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }),
  j({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp/acp-w0-x/work', mcpServers: [] } }),
  j({
    jsonrpc: '2.0',
    id: 2,
    method: 'session/prompt',
    params: { sessionId: 's', prompt: [{ type: 'text', text: 'Fix /tmp/acp-w0-x/work/greet.py' }] },
  }),
  j({ jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'ok' } } }),
];

/** A model-like turn: thought and message split inside an emoji and a CJK word, an edit behind a permission. */
const STDOUT = [
  j({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } }),
  j({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } }),
  chunk('Let me ', 'agent_thought_chunk'),
  chunk('look.', 'agent_thought_chunk'),
  chunk('Fixing 你'),
  chunk('好 \ud83d'),
  chunk('\ude42 now'),
  up({
    sessionUpdate: 'tool_call',
    toolCallId: 'c1',
    title: 'Edit greet.py',
    kind: 'edit',
    status: 'pending',
    locations: [{ path: '/tmp/acp-w0-x/work/greet.py', line: 2 }],
  }),
  j({
    jsonrpc: '2.0',
    id: 0,
    method: 'session/request_permission',
    params: {
      sessionId: 's',
      toolCall: { toolCallId: 'c1' },
      options: [
        { optionId: 'ok', name: 'Allow', kind: 'allow_once' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
    },
  }),
  up({
    sessionUpdate: 'tool_call_update',
    toolCallId: 'c1',
    status: 'completed',
    content: [{ type: 'diff', path: '/w/greet.py', oldText: 'a\nb\nhello\nc\n', newText: 'a\nb\nhi\nc\n' }],
  }),
  up({ sessionUpdate: 'plan', entries: [{ content: 'edit', status: 'completed', priority: 'high' }] }),
  j({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } }),
];

test('a turn reads as a conversation: the prompt, merged thought and message, the tool with its permission, the stop', () => {
  const blocks = conversation(STDOUT, SENT);
  expect(blocks.map((b) => `${b.kind}: ${b.title}`)).toEqual([
    'info: initialize → ok',
    'info: session/new → ok',
    'user: user',
    'thought: agent (thinking)',
    'agent: agent',
    'tool: edit · Edit greet.py — pending',
    'permission: permission asked: Edit greet.py',
    'tool: edit · Edit greet.py — pending → completed',
    'plan: plan',
    'response: stop: end_turn',
  ]);
  expect(blocks[2]!.body).toBe('Fix /tmp/acp-w0-x/work/greet.py');
  expect(blocks[3]!.body).toBe('Let me look.');
  // A surrogate pair split over two chunks is one emoji again once joined.
  expect(blocks[4]!.body).toBe('Fixing 你好 🙂 now');
  expect(blocks[5]!.body).toBe('at /tmp/acp-w0-x/work/greet.py:2');
  expect(blocks[6]!.body).toBe(
    'options: Allow (allow_once), Reject (reject_once)\nanswered: Allow (allow_once)',
  );
  expect(blocks[7]!.body).toContain('diff /w/greet.py\n@@ -1,4 +1,4 @@\n a\n b\n-hello\n+hi\n c');
  expect(blocks[8]!.body).toBe('[completed] edit');
});

test('without the client side (a snapshot file), responses and answers still read', () => {
  const blocks = conversation(STDOUT);
  expect(blocks.map((b) => b.title)).toContain('stop: end_turn');
  expect(blocks.find((b) => b.kind === 'permission')!.body).not.toContain('answered');
});

test('an error answer and a line that is not JSON are shown as errors', () => {
  const blocks = conversation(
    ['not json', j({ jsonrpc: '2.0', id: 0, error: { code: -32002, message: 'gone' } })],
    [j({ jsonrpc: '2.0', id: 0, method: 'session/load', params: {} })],
  );
  expect(blocks.map((b) => [b.kind, b.title, b.body])).toEqual([
    ['error', 'not JSON on stdout', 'not json'],
    ['error', 'session/load → error -32002', 'gone'],
  ]);
});

test('side by side, a changed word is marked on both sides, a missing block is named', () => {
  const expected = conversation(STDOUT, SENT);
  const actual = conversation(
    STDOUT.map((l) => l.replace(' now', ' later')).filter((l) => !l.includes('"plan"')),
    SENT,
  );
  const html = conversationHtml('t: expected and actual', actual, expected);
  expect(html).toContain('<del>now</del>');
  expect(html).toContain('<ins>later</ins>');
  expect(html).toContain('(missing)');
  expect(html).toMatch(/<tr class="changed">/);
});

test('what the agent wrote is escaped', () => {
  const html = conversationHtml('x', conversation([chunk('<img src=x onerror=alert(1)>')]));
  expect(html).not.toContain('<img src=x');
  expect(html).toContain('&lt;img src=x');
});

test('a root streamed in pieces and normalized piece by piece reads as the whole root; a partial run stays', () => {
  const blocks = conversation([
    chunk("I'm answering from {{cwd[0:4]}}"),
    chunk('{{cwd[4:9]}}{{cwd[9:]}}/notes.txt and {{home[0:2]}}'),
    chunk('{{home[2:]}}; a gap: {{spill[0:3]}}{{spill[5:]}}, a tail: {{cwd[9:]}}.'),
  ]);
  expect(blocks.map((b) => b.body)).toEqual([
    "I'm answering from {{cwd}}/notes.txt and {{home}}; a gap: {{spill[0:3]}}{{spill[5:]}}, a tail: {{cwd[9:]}}.",
  ]);
});

test("a terminal embedded in a tool call shows its command, the client's latest output and the exit, answers paired by id", () => {
  const ask = (id: number, method: string, params: Record<string, unknown>) =>
    j({ jsonrpc: '2.0', id, method, params: { sessionId: 's', ...params } });
  const stdout = [
    ask(0, 'terminal/create', { command: '/bin/bash', args: ['-c', 'pwd; sleep 1'], cwd: '/w' }),
    up({
      sessionUpdate: 'tool_call',
      toolCallId: 'c1',
      title: 'Run',
      kind: 'execute',
      status: 'in_progress',
    }),
    up({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      content: [{ type: 'terminal', terminalId: 'term-1' }],
    }),
    ask(1, 'terminal/wait_for_exit', { terminalId: 'term-1' }),
    ask(2, 'terminal/output', { terminalId: 'term-1' }),
    ask(3, 'terminal/output', { terminalId: 'term-1' }),
    ask(4, 'terminal/release', { terminalId: 'term-1' }),
  ];
  // The output polls are answered while wait_for_exit is pending: answers come in another order than requests.
  const sent = [
    j({ jsonrpc: '2.0', id: 0, result: { terminalId: 'term-1' } }),
    j({ jsonrpc: '2.0', id: 2, result: { output: '/w\n', truncated: false } }),
    j({ jsonrpc: '2.0', id: 1, result: { exitCode: 0, signal: null } }),
    j({
      jsonrpc: '2.0',
      id: 3,
      result: { output: 'w\nlast\n', truncated: true, exitStatus: { exitCode: 0 } },
    }),
    j({ jsonrpc: '2.0', id: 4, result: {} }),
  ];
  const blocks = conversation(stdout, sent);
  expect(blocks.map((b) => `${b.kind}: ${b.title}`)).toEqual([
    'info: terminal/create term-1: $ /bin/bash -c pwd; sleep 1 → ok',
    'tool: execute · Run — in_progress',
    'info: terminal/wait_for_exit term-1 → ok',
    'info: terminal/output term-1 → ok',
    'info: terminal/output term-1 → ok',
    'info: terminal/release term-1 → ok',
  ]);
  expect(blocks[1]!.body).toBe('$ /bin/bash -c pwd; sleep 1\n[earlier output dropped]\nw\nlast\n[exit 0]');
});
