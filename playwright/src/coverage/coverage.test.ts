import { expect, test } from '@playwright/test';
import { computeCoverage, declaredCapabilities, SECTIONS, type TestWire, type WireLine } from './coverage.js';
import { coverageHtml, coverageText } from './coverage-format.js';

/** An agent that declares what real agents declare: load, image prompts, list and resume, two modes, a model option. */
const INIT_RESULT = {
  protocolVersion: 1,
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: true, audio: false, embeddedContext: true },
    sessionCapabilities: { list: {}, resume: {} },
    mcpCapabilities: { http: false },
    _meta: { vendor: true },
  },
  agentInfo: { name: 'fake-agent', version: '1.2.3' },
  authMethods: [],
};
const SESSION = {
  sessionId: 'sess-1',
  modes: {
    currentModeId: 'ask',
    availableModes: [
      { id: 'ask', name: 'Ask' },
      { id: 'read-only', name: 'Read only' },
    ],
  },
  configOptions: [{ type: 'select', id: 'model', name: 'Model', currentValue: 'a', options: [] }],
};

const line = (process: number, m: unknown): WireLine => ({ text: JSON.stringify(m), process });
const req = (p: number, id: number, method: string, params: unknown = {}) =>
  line(p, { jsonrpc: '2.0', id, method, params });
const ok = (p: number, id: number, result: unknown) => line(p, { jsonrpc: '2.0', id, result });
const update = (p: number, u: unknown) =>
  line(p, { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'sess-1', update: u } });

/** A test that initializes, opens a session, prompts (the agent edits after a permission) and ends the turn. */
function editTest(title: string): TestWire {
  return {
    project: 'fake',
    test: title,
    sent: [
      req(0, 0, 'initialize', { protocolVersion: 1 }),
      req(0, 1, 'session/new', { cwd: '/tmp/w', mcpServers: [] }),
      req(0, 2, 'session/prompt', { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'edit it' }] }),
      // The client's answer to the agent's permission request 0 (ids of each direction are separate).
      ok(0, 0, { outcome: { outcome: 'selected', optionId: 'no' } }),
    ],
    received: [
      ok(0, 0, INIT_RESULT),
      ok(0, 1, SESSION),
      update(0, {
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: 'Edit a.py',
        kind: 'edit',
        status: 'pending',
      }),
      req(0, 0, 'session/request_permission', {
        sessionId: 'sess-1',
        toolCall: { toolCallId: 't1' },
        options: [
          { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
          { optionId: 'no', name: 'Reject', kind: 'reject_once' },
        ],
      }),
      update(0, { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'failed' }),
      update(0, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Not edited 🙂' } }),
      ok(0, 2, { stopReason: 'end_turn' }),
    ],
  };
}

const items = (c: ReturnType<typeof computeCoverage>, section: string) =>
  Object.fromEntries(
    c.projects[0]!.sections.find((s) => s.title === section)?.items.map((i) => [i.key, i.tests]) ?? [],
  );

test('declared capabilities are the true leaves and the empty objects, never vendor _meta', () => {
  expect(declaredCapabilities(INIT_RESULT.agentCapabilities)).toEqual([
    'loadSession',
    'promptCapabilities.image',
    'promptCapabilities.embeddedContext',
    'sessionCapabilities.list',
    'sessionCapabilities.resume',
  ]);
});

test('what was declared and never exercised comes first, one gap each', () => {
  const c = computeCoverage([editTest('edits')]);
  expect(c.projects).toHaveLength(1);
  expect(c.projects[0]!.agent).toBe('fake-agent 1.2.3');
  expect(c.projects[0]!.gaps.map((g) => g.message)).toEqual([
    'declared `loadSession`, never loaded (no session/load answered ok)',
    'declared `promptCapabilities.embeddedContext`, never sent a `resource` block in a prompt',
    'declared `promptCapabilities.image`, never sent an `image` block in a prompt',
    'declared `sessionCapabilities.list`, never called `session/list` (answered ok)',
    'declared `sessionCapabilities.resume`, never called `session/resume` (answered ok)',
    'declared mode `read-only`, never set and never active',
    'declared config option `model`, never set',
  ]);
  const text = coverageText(c);
  expect(text.indexOf('declared but never exercised (7)')).toBeLessThan(
    text.indexOf('client → agent requests'),
  );
});

test('requests, permission outcomes, tool kinds per mode and stop reasons are counted per test', () => {
  const c = computeCoverage([editTest('one'), editTest('two')]);
  expect(items(c, SECTIONS.clientRequests)).toEqual({
    'initialize → ok': ['one', 'two'],
    'session/new → ok': ['one', 'two'],
    'session/prompt → ok': ['one', 'two'],
  });
  expect(items(c, SECTIONS.agentRequests)).toEqual({ 'session/request_permission → ok': ['one', 'two'] });
  expect(items(c, SECTIONS.permissions)).toEqual({ 'selected reject_once': ['one', 'two'] });
  expect(items(c, SECTIONS.toolStatuses)).toEqual({ failed: ['one', 'two'], pending: ['one', 'two'] });
  expect(items(c, SECTIONS.modes)).toEqual({ 'ask: edit': ['one', 'two'] });
  expect(items(c, SECTIONS.stopReasons)).toEqual({ end_turn: ['one', 'two'] });
  expect(items(c, SECTIONS.produced)).toEqual({ 'agent_message_chunk: text': ['one', 'two'] });
  expect(c.projects[0]!.tests).toBe(2);
});

test('a second test that loads, lists, resumes, prompts an image in read-only and sets the model closes the gaps', () => {
  const more: TestWire = {
    project: 'fake',
    test: 'the rest',
    sent: [
      req(0, 0, 'initialize', {}),
      req(0, 1, 'session/list', { cwd: '/tmp/w' }),
      req(0, 2, 'session/load', { sessionId: 'sess-1', cwd: '/tmp/w', mcpServers: [] }),
      req(0, 3, 'session/set_mode', { sessionId: 'sess-1', modeId: 'read-only' }),
      req(0, 4, 'session/set_config_option', { sessionId: 'sess-1', configId: 'model', value: 'b' }),
      req(0, 5, 'session/prompt', {
        sessionId: 'sess-1',
        prompt: [
          { type: 'image', data: '', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a', text: 'x' } },
        ],
      }),
      // A fresh process: ids start again at 0, and its answers pair with its own requests.
      req(1, 0, 'initialize', {}),
      req(1, 1, 'session/resume', { sessionId: 'sess-1', cwd: '/tmp/w' }),
    ],
    received: [
      ok(0, 0, INIT_RESULT),
      ok(0, 1, { sessions: [] }),
      ok(0, 2, SESSION),
      ok(0, 3, {}),
      ok(0, 4, { configOptions: [] }),
      update(0, {
        sessionUpdate: 'tool_call',
        toolCallId: 't9',
        title: 'Write b.py',
        kind: 'edit',
        status: 'failed',
      }),
      ok(0, 5, { stopReason: 'end_turn' }),
      ok(1, 0, INIT_RESULT),
      line(1, { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'Resource not found' } }),
    ],
  };
  const c = computeCoverage([editTest('edits'), more]);
  // resume was answered with an error: still a gap, and the error code is counted.
  expect(c.projects[0]!.gaps.map((g) => g.declared)).toEqual(['sessionCapabilities.resume']);
  expect(items(c, SECTIONS.clientRequests)['session/resume → error -32002']).toEqual(['the rest']);
  expect(items(c, SECTIONS.modes)['read-only: edit']).toEqual(['the rest']);
  expect(items(c, SECTIONS.configOptions)).toEqual({ 'model = b → ok': ['the rest'] });
});

test('a mode never tried with a kind it governs, and a list never filtered by cwd, are gaps; the session surface says which session each request addressed', () => {
  const surface: TestWire = {
    project: 'fake',
    test: 'two dirs',
    sent: [
      req(0, 0, 'initialize', {}),
      req(0, 1, 'session/new', { cwd: '/w/a', mcpServers: [] }),
      req(0, 2, 'session/new', { cwd: '/w/b', mcpServers: [] }),
      req(0, 3, 'session/list', {}),
      req(0, 4, 'session/list', { cwd: '/w/a', cursor: 'c1' }),
      req(0, 5, 'session/set_mode', { sessionId: 's2', modeId: 'read-only' }),
      req(0, 6, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] }),
      req(1, 0, 'session/load', { sessionId: 's1', cwd: '/w/a', mcpServers: [] }),
      req(1, 1, 'session/close', { sessionId: 'nobody' }),
    ],
    received: [
      ok(0, 0, INIT_RESULT),
      ok(0, 1, { ...SESSION, sessionId: 's1' }),
      ok(0, 2, { ...SESSION, sessionId: 's2' }),
      ok(0, 3, { sessions: [] }),
      ok(0, 4, { sessions: [] }),
      ok(0, 5, {}),
      line(0, {
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: 's2',
          update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'ls', kind: 'read' },
        },
      }),
      ok(0, 6, { stopReason: 'end_turn' }),
      ok(1, 0, SESSION),
      ok(1, 1, {}),
    ],
  };
  const unfiltered: TestWire = {
    ...surface,
    test: 'unfiltered',
    sent: surface.sent.map((l) => ({ ...l, text: l.text.replace(/"cwd":"\/w\/a","cursor":"c1"/, '') })),
  };
  const c = computeCoverage([editTest('edits'), surface]);
  expect(items(c, SECTIONS.sessionSurface)).toMatchObject({
    'session/new: in a second directory': ['two dirs'],
    'session/list: no filter': ['two dirs'],
    'session/list: cwd filter': ['two dirs'],
    "session/list: cwd filter, another directory's session left out": ['two dirs'],
    'session/list: cursor (a next page)': ['two dirs'],
    'session/set_mode: the newest session': ['two dirs'],
    'session/prompt: an older session (another one created since)': ['two dirs'],
    'session/load: a session of an earlier process': ['two dirs'],
    'session/close: an id no session/new of the test returned': ['two dirs'],
  });
  // read-only saw a read, never an edit, which the run attempted in ask.
  expect(c.projects[0]!.gaps.map((g) => g.message)).toContain(
    'mode `read-only`: never an `edit` tool call attempted in it (its effect on edit calls is untested)',
  );
  const bare = computeCoverage([editTest('edits'), unfiltered]);
  expect(bare.projects[0]!.gaps.map((g) => g.message)).toContain(
    'declared `sessionCapabilities.list`, never filtered by cwd (every `session/list` listed all directories)',
  );
  expect(bare.projects[0]!.gaps.map((g) => g.message)).not.toContain(
    'declared `sessionCapabilities.list`, never called `session/list` (answered ok)',
  );
});

test('a tool call counts in the mode it ran in, not the one a later set_mode or mode option set', () => {
  const edit = (id: string) =>
    update(0, {
      sessionUpdate: 'tool_call',
      toolCallId: id,
      title: 'Edit a.py',
      kind: 'edit',
      status: 'pending',
    });
  const later: TestWire = {
    project: 'fake',
    test: 'switches after',
    sent: [
      req(0, 0, 'initialize', {}),
      req(0, 1, 'session/new', { cwd: '/tmp/w', mcpServers: [] }),
      req(0, 2, 'session/prompt', { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'edit' }] }),
      req(0, 3, 'session/set_config_option', { sessionId: 'sess-1', configId: 'mode', value: 'read-only' }),
      req(0, 4, 'session/prompt', { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'again' }] }),
      req(0, 5, 'session/set_mode', { sessionId: 'sess-1', modeId: 'ask' }),
    ],
    received: [
      ok(0, 0, INIT_RESULT),
      ok(0, 1, SESSION),
      edit('t1'),
      ok(0, 2, { stopReason: 'end_turn' }),
      ok(0, 3, {
        configOptions: [
          { type: 'select', id: 'mode', category: 'mode', currentValue: 'read-only', options: [] },
        ],
      }),
      edit('t2'),
      ok(0, 4, { stopReason: 'end_turn' }),
      ok(0, 5, {}),
    ],
  };
  const c = computeCoverage([later]);
  expect(items(c, SECTIONS.modes)).toEqual({
    'ask: edit': ['switches after'],
    'ask: set': ['switches after'],
    'read-only: edit': ['switches after'],
  });
});

test('a tool call announced only by its permission request (then updated) counts in its kind and mode', () => {
  const asked: TestWire = {
    project: 'fake',
    test: 'asks first',
    sent: [
      req(0, 0, 'initialize', {}),
      req(0, 1, 'session/new', { cwd: '/tmp/w', mcpServers: [] }),
      req(0, 2, 'session/prompt', { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'write' }] }),
      ok(0, 0, { outcome: { outcome: 'selected', optionId: 'yes' } }),
    ],
    received: [
      ok(0, 0, INIT_RESULT),
      ok(0, 1, SESSION),
      req(0, 0, 'session/request_permission', {
        sessionId: 'sess-1',
        toolCall: { toolCallId: 'w1', title: 'Write notes.txt', kind: 'edit', status: 'pending' },
        options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }],
      }),
      update(0, { sessionUpdate: 'tool_call_update', toolCallId: 'w1', status: 'completed' }),
      ok(0, 2, { stopReason: 'end_turn' }),
    ],
  };
  const c = computeCoverage([asked]);
  expect(items(c, SECTIONS.toolKinds)).toEqual({ edit: ['asks first'] });
  expect(items(c, SECTIONS.modes)).toEqual({ 'ask: edit': ['asks first'] });
  expect(items(c, SECTIONS.permissions)).toEqual({ 'selected allow_once': ['asks first'] });
});

test('projects are reported apart, and the HTML escapes what the agent wrote', () => {
  const evil = { ...editTest('<script>alert(1)</script>'), project: 'other' };
  const c = computeCoverage([editTest('edits'), evil]);
  expect(c.projects.map((p) => p.project)).toEqual(['fake', 'other']);
  const html = coverageHtml(c);
  expect(html).not.toContain('<script>alert(1)');
  expect(html).toContain('&lt;script&gt;');
  expect(html).toContain('<code>loadSession</code>');
});

test('a wire with no ACP traffic says so instead of an empty report', () => {
  expect(coverageText(computeCoverage([]))).toContain('no ACP wire was recorded');
});

test('coverage per version: a v2 wire counts its methods and update kinds as v2, its idle stop reason and created tool calls', () => {
  const v1 = editTest('v1 test');
  const v2: TestWire = {
    project: 'fake',
    test: 'v2 test',
    sent: [
      req(0, 0, 'initialize', { protocolVersion: 2, info: { name: 'c', version: '1' } }),
      req(0, 1, 'session/new', { cwd: '/w' }),
      req(0, 2, 'session/prompt', { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'go' }] }),
      ok(0, 0, { outcome: { outcome: 'selected', optionId: 'y' } }),
      line(0, { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess-1' } }),
    ],
    received: [
      ok(0, 0, { protocolVersion: 2, info: { name: 'fake-agent', version: '2.0.0' }, capabilities: {} }),
      ok(0, 1, { sessionId: 'sess-1' }),
      ok(0, 2, { messageId: 'u1' }),
      update(0, { sessionUpdate: 'tool_call_update', toolCallId: 't9', kind: 'execute', status: 'pending' }),
      line(0, {
        jsonrpc: '2.0',
        id: 0,
        method: 'session/request_permission',
        params: {
          sessionId: 'sess-1',
          title: 'Run',
          subject: { type: 'tool_call', toolCall: { toolCallId: 't9' } },
          options: [{ optionId: 'y', name: 'Yes', kind: 'allow_once' }],
        },
      }),
      update(0, {
        sessionUpdate: 'agent_message_chunk',
        messageId: 'm1',
        content: { type: 'text', text: 'ok' },
      }),
      update(0, { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' }),
    ],
  };
  const [agent] = computeCoverage([v1, v2]).projects;
  const keys = (title: string) =>
    agent!.sections.find((s) => s.title === title)?.items.map((i) => i.key) ?? [];
  expect(keys(SECTIONS.clientRequests)).toEqual(
    expect.arrayContaining(['session/prompt → ok', 'v2 session/prompt → ok', 'v2 initialize → ok']),
  );
  expect(keys(SECTIONS.clientNotifications)).toContain('v2 session/cancel');
  expect(keys(SECTIONS.agentRequests)).toContain('v2 session/request_permission → ok');
  expect(keys(SECTIONS.updates)).toEqual(
    expect.arrayContaining(['tool_call', 'v2 tool_call_update', 'v2 agent_message_chunk', 'v2 state_update']),
  );
  expect(keys(SECTIONS.stopReasons)).toEqual(expect.arrayContaining(['end_turn', 'cancelled']));
  expect(keys(SECTIONS.toolKinds)).toContain('execute');
  const v2Items = agent!.sections
    .find((s) => s.title === SECTIONS.updates)!
    .items.filter((i) => i.key.startsWith('v2 '));
  for (const i of v2Items) expect(i.tests).toEqual(['v2 test']);
});

test('client terminal calls are counted: commands run, how they ended, truncated output, kills and releases; an offer never used is a gap', () => {
  const terminal = (
    title: string,
    offered: boolean,
    calls: [string, Record<string, unknown>][],
  ): TestWire => {
    const base = editTest(title);
    base.sent[0] = req(0, 0, 'initialize', { protocolVersion: 1, clientCapabilities: { terminal: offered } });
    calls.forEach(([method, result], i) => {
      base.received.push(req(0, 10 + i, method, { sessionId: 'sess-1', terminalId: 'term-1' }));
      base.sent.push(ok(0, 10 + i, result));
    });
    return base;
  };
  const used = terminal('runs a command', true, [
    ['terminal/create', { terminalId: 'term-1' }],
    ['terminal/output', { output: '…', truncated: true }],
    ['terminal/kill', {}],
    ['terminal/wait_for_exit', { exitCode: null, signal: 'SIGKILL' }],
    ['terminal/output', { output: '…', truncated: true, exitStatus: { exitCode: null, signal: 'SIGKILL' } }],
    ['terminal/release', {}],
  ]);
  const c = computeCoverage([
    used,
    terminal('exits 3', true, [
      ['terminal/create', { terminalId: 'term-1' }],
      ['terminal/wait_for_exit', { exitCode: 3, signal: null }],
    ]),
  ]);
  expect(items(c, SECTIONS.terminals)).toEqual({
    'command run (terminal/create)': ['exits 3', 'runs a command'],
    'killed by the agent': ['runs a command'],
    'offered (clientCapabilities.terminal)': ['exits 3', 'runs a command'],
    'output read': ['runs a command'],
    'output read after the exit: ended by a signal': ['runs a command'],
    'output read: truncated at outputByteLimit': ['runs a command'],
    'released by the agent': ['runs a command'],
    'waited for: ended by a signal': ['runs a command'],
    'waited for: exit non-zero': ['exits 3'],
  });
  expect(items(c, SECTIONS.agentRequests)['terminal/create → ok']).toEqual(['exits 3', 'runs a command']);
  expect(c.projects[0]!.gaps.map((g) => g.declared)).not.toContain('clientCapabilities.terminal');
  const unused = computeCoverage([terminal('offered only', true, [])]);
  expect(unused.projects[0]!.gaps.find((g) => g.declared === 'clientCapabilities.terminal')?.message).toBe(
    'the client offered `terminal`, and the agent never ran a command in a client terminal',
  );
});

test('MCP tools exercised, by server and tool name, from what the test MCP servers saw; a tool offered and never called is a gap', () => {
  const wire = editTest('calls MCP tools');
  wire.sent[1] = req(0, 1, 'session/new', {
    cwd: '/tmp/w',
    mcpServers: [
      { name: 'notes', command: 'node', args: [], env: [] },
      { type: 'http', name: 'tickets', url: 'http://127.0.0.1:1/mcp', headers: [] },
    ],
  });
  const mcp = (server: string, from: 'agent' | 'server', message: Record<string, unknown>) => ({
    server,
    from,
    message: { jsonrpc: '2.0', ...message },
  });
  const tools = (...names: string[]) => ({ tools: names.map((name) => ({ name, inputSchema: {} })) });
  wire.mcp = [
    mcp('notes', 'agent', { id: 0, method: 'initialize', params: {} }),
    mcp('notes', 'server', { id: 0, result: {} }),
    mcp('notes', 'agent', { method: 'notifications/initialized' }),
    mcp('notes', 'agent', { id: 1, method: 'tools/list', params: {} }),
    mcp('notes', 'server', { id: 1, result: tools('search_notes', 'delete_note') }),
    mcp('notes', 'agent', { id: 2, method: 'tools/call', params: { name: 'search_notes', arguments: {} } }),
    mcp('notes', 'server', { id: 2, result: { content: [{ type: 'text', text: 'milk' }] } }),
    // Over HTTP the agent opens a second MCP session, numbering from 0 again.
    mcp('tickets', 'agent', { id: 0, method: 'initialize', params: {} }),
    mcp('tickets', 'server', { id: 0, result: {} }),
    mcp('tickets', 'agent', { id: 1, method: 'tools/list', params: {} }),
    mcp('tickets', 'server', { id: 1, result: tools('open_ticket') }),
    mcp('tickets', 'agent', { id: 0, method: 'initialize', params: {} }),
    mcp('tickets', 'server', { id: 0, result: {} }),
    mcp('tickets', 'agent', { id: 1, method: 'tools/call', params: { name: 'open_ticket', arguments: {} } }),
    mcp('tickets', 'server', { id: 1, result: { content: [], isError: true } }),
    mcp('tickets', 'agent', { id: 2, method: 'tools/call', params: { name: 'open_ticket', arguments: {} } }),
    { server: 'tickets', exit: 1, stderr: 'fatal\n', scripted: true },
  ];
  const c = computeCoverage([wire, editTest('no MCP')]);
  expect(items(c, SECTIONS.mcp)).toEqual({
    'notes: connected (stdio)': ['calls MCP tools'],
    'notes: tools listed (tools/list)': ['calls MCP tools'],
    'notes: tool search_notes called → ok': ['calls MCP tools'],
    'tickets: connected (http)': ['calls MCP tools'],
    'tickets: tools listed (tools/list)': ['calls MCP tools'],
    'tickets: tool open_ticket called → error result (isError)': ['calls MCP tools'],
    'tickets: tool open_ticket called → no answer': ['calls MCP tools'],
    'tickets: crashed (scripted)': ['calls MCP tools'],
  });
  const gaps = c.projects[0]!.gaps.filter((g) => g.declared.startsWith('mcpTool:'));
  expect(gaps).toEqual([
    {
      declared: 'mcpTool:notes/delete_note',
      message: 'the test MCP server `notes` offered tool `delete_note`, and the agent never called it',
    },
  ]);
  expect(coverageText(c)).toContain('notes: tool search_notes called → ok');
});
