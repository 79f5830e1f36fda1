import { expect, test } from '@playwright/test';
import { conversationHtml } from './conversation.js';
import { conversation } from './conversation-model.js';
import { conversationLines, stdoutTranscript } from './transcript.js';

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
    'info: initialize → protocol 1',
    'info: session/new → s',
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

// ACP v2 beside v1 (conversation-model.ts): one turn written on each wire gives the same conversation, and
// v2's upserts merge as the protocol says (chunks append to their message wherever they arrive, an upsert
// replaces, an omitted field leaves the message as it was, null clears it).
const text = (t: string) => ({ type: 'text', text: t });

/** The agent's permission request. */
const asks = (params: unknown) => j({ jsonrpc: '2.0', id: 0, method: 'session/request_permission', params });
const OPTIONS = [
  { optionId: 'ok', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

/** One turn on v1: chunks split inside a CJK word and an emoji, a tool call behind a permission, a plan. */
const V1 = [
  j({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentInfo: { name: 'a', version: '1' } } }),
  j({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } }),
  up({ sessionUpdate: 'agent_message_chunk', content: text('Fixing 你') }),
  up({ sessionUpdate: 'agent_message_chunk', content: text('好 🙂') }),
  up({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Edit a.py', kind: 'edit', status: 'pending' }),
  asks({ sessionId: 's', toolCall: { toolCallId: 'c1', title: 'Edit a.py' }, options: OPTIONS }),
  up({
    sessionUpdate: 'tool_call_update',
    toolCallId: 'c1',
    status: 'completed',
    content: [{ type: 'content', content: text('done') }],
  }),
  up({ sessionUpdate: 'plan', entries: [{ content: 'edit', status: 'completed', priority: 'high' }] }),
  j({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } }),
];

/** The same turn on v2: acknowledged, upserts by id, the first tool_call_update creates the call, idle ends it. */
const V2 = [
  j({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 2, info: { name: 'a', version: '1' } } }),
  j({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } }),
  j({ jsonrpc: '2.0', id: 2, result: { messageId: 'u1' } }),
  up({ sessionUpdate: 'state_update', state: 'running' }),
  up({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('Fixing 你') }),
  up({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('好 🙂') }),
  up({
    sessionUpdate: 'tool_call_update',
    toolCallId: 'c1',
    title: 'Edit a.py',
    kind: 'edit',
    status: 'pending',
  }),
  up({ sessionUpdate: 'state_update', state: 'requires_action' }),
  asks({
    sessionId: 's',
    title: 'Edit a.py',
    subject: { type: 'tool_call', toolCall: { toolCallId: 'c1', title: 'Edit a.py' } },
    options: OPTIONS,
  }),
  up({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed' }),
  up({
    sessionUpdate: 'tool_call_content_chunk',
    toolCallId: 'c1',
    content: { type: 'content', content: text('done') },
  }),
  up({
    sessionUpdate: 'plan_update',
    plan: {
      type: 'items',
      planId: 'p1',
      entries: [{ content: 'edit', status: 'completed', priority: 'high' }],
    },
  }),
  up({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' }),
];

test('one turn on v1 and on v2 reads as the same conversation', () => {
  const v1 = conversation(V1, SENT);
  const v2 = conversation(V2, SENT);
  // Only the protocol the agent settled on tells them apart.
  expect(v2[0]!.title).toBe('initialize → protocol 2, a 1');
  expect(v2.slice(1)).toEqual(v1.slice(1));
  expect(v1.map((b) => `${b.kind}: ${b.title}`)).toEqual([
    'info: initialize → protocol 1, a 1',
    'info: session/new → s',
    'user: user',
    'agent: agent',
    'tool: edit · Edit a.py — pending',
    'permission: permission asked: Edit a.py',
    'tool: edit · Edit a.py — pending → completed',
    'plan: plan',
    'response: stop: end_turn',
  ]);
  expect(v1[3]!.body).toBe('Fixing 你好 🙂');
});

test('v2 upserts merge: chunks append to their message, an upsert replaces, omitted leaves, null clears', () => {
  const stdout = [
    V2[0]!,
    V2[1]!,
    V2[2]!,
    up({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('first ') }),
    up({ sessionUpdate: 'agent_thought_chunk', messageId: 't1', content: text('hmm') }),
    // Back to m1 after another message: it appends to m1, not to the thought.
    up({ sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('answer') }),
    up({ sessionUpdate: 'agent_message', messageId: 'm2', content: [text('second')] }),
    up({ sessionUpdate: 'agent_message', messageId: 'm2', _meta: { seen: true } }),
    up({ sessionUpdate: 'agent_message', messageId: 't1', content: null }),
    up({ sessionUpdate: 'agent_message', messageId: 'm1', content: [text('rewritten')] }),
    up({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' }),
  ];
  const blocks = conversation(stdout, SENT).slice(3);
  expect(blocks.map((b) => [b.kind, b.body])).toEqual([
    ['agent', 'rewritten'],
    ['thought', ''],
    ['agent', 'second'],
    ['response', ''],
  ]);
  expect(blocks.at(-1)!.title).toBe('stop: cancelled');
});

test('the text view reads a v2 turn as the HTML view does: upserts merged, states and the acknowledgement left out', () => {
  const lines = stdoutTranscript(`${V2.join('\n')}\n`);
  expect(lines).toEqual([
    'initialize → protocol 2, a 1',
    'session/new → s',
    'agent: Fixing 你好 🙂',
    'edit · Edit a.py — pending',
    'permission asked: Edit a.py: options: Allow (allow_once), Reject (reject_once)',
    'edit · Edit a.py — pending → completed: done',
    'plan: [completed] edit',
    'stop: end_turn',
  ]);
  // The v1 wire of the same turn reads the same, but for the protocol.
  expect(stdoutTranscript(`${V1.join('\n')}\n`).slice(1)).toEqual(lines.slice(1));
});

test('the text and the HTML of one wire show the same blocks: each title and text in order', () => {
  for (const wire of [V1, V2]) {
    const blocks = conversation(wire, SENT);
    const html = conversationHtml('t', blocks);
    const lines = conversationLines(blocks);
    expect(lines).toEqual([
      expect.stringMatching(/^initialize → protocol [12], a 1$/),
      'session/new → s',
      'user: Fix /tmp/acp-w0-x/work/greet.py',
      'agent: Fixing 你好 🙂',
      'edit · Edit a.py — pending',
      'permission asked: Edit a.py: options: Allow (allow_once), Reject (reject_once)⏎answered: Allow (allow_once)',
      'edit · Edit a.py — pending → completed: done',
      'plan: [completed] edit',
      'stop: end_turn',
    ]);
    // The HTML shows each block's title and text, in the same order, in its kind's box.
    const shown = [
      ...html.matchAll(
        /<div class="b (\w+)"><div class="t">([^<]*)<\/div>(?:<div class="body">([^<]*)<\/div>)?/g,
      ),
    ];
    expect(
      shown.map(([, kind, title, body]) =>
        body ? `${kind} ${title}: ${body.replaceAll('\n', '⏎')}` : `${kind} ${title}`,
      ),
    ).toEqual(
      blocks.map(
        (b, i) =>
          `${b.kind} ${lines[i]!.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}`,
      ),
    );
  }
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

test("a snapshot's permission request is paired with the client's answer in turn when the ids were numbered apart", () => {
  // A committed stdout numbers the agent's ids ({{id:3}}); the client's answer keeps its own.
  const stdout = [
    j({
      jsonrpc: '2.0',
      id: '{{id:3}}',
      method: 'session/request_permission',
      params: { sessionId: 's', toolCall: { toolCallId: 'c1', title: 'Edit greeting.py' }, options: OPTIONS },
    }),
  ];
  const sent = [j({ jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'ok' } } })];
  const [block] = conversation(stdout, sent);
  expect(block!.body).toContain('answered: Allow (allow_once)');
});

test("a session's settings read by name on v1 (`id`) and on v2 (`configId`)", () => {
  const sessionNew = (option: Record<string, unknown>) =>
    conversation([
      j({
        jsonrpc: '2.0',
        id: 1,
        result: { sessionId: 's', configOptions: [{ ...option, currentValue: 'ask' }] },
      }),
      up({ sessionUpdate: 'config_option_update', configOptions: [{ ...option, currentValue: 'auto' }] }),
    ]).map((b) => b.title);
  const v1 = sessionNew({ id: 'mode', type: 'select' });
  expect(v1).toEqual(['session/new → s (mode=ask)', 'config: mode=auto']);
  expect(sessionNew({ configId: 'mode', type: 'select' })).toEqual(v1);
});
