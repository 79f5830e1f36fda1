// Prompt turns through the real agent process: text, tools with permissions, parallel and malformed tool
// calls, provider errors, the step cap. The model is the scripted fake plugin (fixtures/scripted-plugin.mjs).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  AgentProcess,
  makeDirs,
  readEvents,
  removeDirs,
  textCall,
  toolCall,
  updateKinds,
} from './agent-process.js';

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures argument as a destructuring pattern
test.afterEach(({}, testInfo) => removeDirs(testInfo));

test('text-only turn streams thought and message chunks, persists the turn, and ends with end_turn', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    calls: [
      {
        chunks: [
          { type: 'reasoning', text: 'The user greets.' },
          { type: 'text', text: 'Hel' },
          { type: 'text', text: 'lo!' },
          {
            type: 'finish',
            reason: 'stop',
            usage: { promptTokens: 10, completionTokens: 3, totalTokens: 13 },
          },
        ],
      },
    ],
  });
  const init = await agent.initialize();
  expect(init.protocolVersion).toBe(1);
  expect(init.agentCapabilities?.loadSession).toBe(true);
  expect(init.agentCapabilities?.promptCapabilities).toEqual({
    image: false,
    audio: false,
    embeddedContext: true,
  });
  expect(init.agentInfo?.name).toBe('acp-snapshot-agent');

  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  expect(sessionId).toBe('sess-1');
  const res = await agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'hi' }],
  });
  expect(res.stopReason).toBe('end_turn');
  expect(agent.updates.map((u) => u.update)).toEqual([
    { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'The user greets.' } },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hel' } },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo!' } },
  ]);
  expect(agent.updates.every((u) => u.sessionId === sessionId)).toBe(true);

  const [req] = agent.requests();
  expect(req!.request.model).toBe('deepseek-chat');
  expect(req!.request.messages).toEqual([{ role: 'user', content: 'hi' }]);
  expect(req!.request.system).toContain(`Working directory: ${dirs.cwd}`);
  expect(req!.request.tools.map((t) => t.name)).toContain('read_file');

  expect(await agent.close()).toBe(0);
  // stdout carried JSON-RPC only.
  for (const line of agent.stdoutLines) expect(JSON.parse(line).jsonrpc).toBe('2.0');

  const events = await readEvents(dirs.persist, sessionId);
  expect(events.map((e) => e.type)).toEqual([
    'session/header',
    'turn/start',
    'message/committed',
    'llm/request',
    'assistant/chunk',
    'assistant/chunk',
    'assistant/chunk',
    'assistant/chunk',
    'message/committed',
    'turn/end',
  ]);
  const header = events[0] as Extract<(typeof events)[number], { type: 'session/header' }>;
  expect(header.cwd).toBe(dirs.cwd);
  expect(header.provider.model).toBe('deepseek-chat');
  expect(header.provider.plugin).toMatch(/^module:.*scripted-plugin\.mjs$/);
  expect(events[8]).toEqual({
    type: 'message/committed',
    turn: 1,
    message: { role: 'assistant', content: 'Hello!', reasoning: 'The user greets.' },
  });
  expect(events[9]).toEqual({ type: 'turn/end', turn: 1, kind: 'completed' });
});

test('tool turn: one edit allowed, one rejected; the model sees both results and the reasoning is kept', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    calls: [
      toolCall(
        [
          { id: 'call_a', name: 'write_file', args: JSON.stringify({ path: 'a.txt', content: 'alpha\n' }) },
          { id: 'call_b', name: 'write_file', args: JSON.stringify({ path: 'b.txt', content: 'beta\n' }) },
        ],
        'I will write both files.',
      ),
      textCall(['Wrote a.txt; b.txt was rejected.']),
    ],
    answer: (req) =>
      req.toolCall.toolCallId === 'call_a'
        ? { outcome: 'selected', optionId: 'allow_once' }
        : { outcome: 'selected', optionId: 'reject_once' },
  });
  const { sessionId, ...res } = await agent.firstPrompt(dirs.cwd, 'write files');
  expect(res.stopReason).toBe('end_turn');

  expect(readFileSync(join(dirs.cwd, 'a.txt'), 'utf8')).toBe('alpha\n');
  expect(existsSync(join(dirs.cwd, 'b.txt'))).toBe(false);
  expect(agent.permissionRequests.map((r) => [r.toolCall.toolCallId, r.options.map((o) => o.kind)])).toEqual([
    ['call_a', ['allow_once', 'reject_once']],
    ['call_b', ['allow_once', 'reject_once']],
  ]);
  const toolUpdates = agent.updates
    .map((u) => u.update)
    .filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
  expect(toolUpdates.map((u) => [u.sessionUpdate, u.toolCallId, u.status])).toEqual([
    ['tool_call', 'call_a', 'pending'],
    ['tool_call', 'call_b', 'pending'],
    ['tool_call_update', 'call_a', 'in_progress'],
    ['tool_call_update', 'call_a', 'completed'],
    ['tool_call_update', 'call_b', 'failed'],
  ]);
  const first = toolUpdates[0]!;
  expect(first.sessionUpdate === 'tool_call' && first.kind).toBe('edit');
  expect(first.locations?.[0]?.path).toBe(join(dirs.cwd, 'a.txt'));
  const completed = toolUpdates[3]!;
  expect(completed.content?.some((c) => c.type === 'diff')).toBe(true);

  const second = agent.requests()[1]!.request;
  expect(second.messages[1]).toMatchObject({
    role: 'assistant',
    reasoning: 'I will write both files.',
    toolCalls: [{ id: 'call_a' }, { id: 'call_b' }],
  });
  expect(second.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'call_a' });
  expect(second.messages[3]).toMatchObject({ role: 'tool', toolCallId: 'call_b' });
  expect((second.messages[3] as { content: string }).content).toContain('Rejected');
  await agent.close();

  const events = await readEvents(dirs.persist, sessionId);
  const perm = events.filter((e) => e.type === 'permission/request' || e.type === 'permission/outcome');
  expect(perm).toEqual([
    { type: 'permission/request', turn: 1, toolCallId: 'call_a', options: expect.any(Array) },
    {
      type: 'permission/outcome',
      turn: 1,
      toolCallId: 'call_a',
      outcome: 'selected',
      optionId: 'allow_once',
    },
    { type: 'permission/request', turn: 1, toolCallId: 'call_b', options: expect.any(Array) },
    {
      type: 'permission/outcome',
      turn: 1,
      toolCallId: 'call_b',
      outcome: 'selected',
      optionId: 'reject_once',
    },
  ]);
  expect(
    events.filter((e) => e.type === 'tool/result').map((e) => e.type === 'tool/result' && e.status),
  ).toEqual(['completed', 'failed']);
});

test('parallel read calls in one step each get their tool_call and update, results in call order', async () => {
  const dirs = makeDirs();
  writeFileSync(join(dirs.cwd, 'one.txt'), 'first file\n');
  writeFileSync(join(dirs.cwd, 'two.txt'), 'second file\n');
  const agent = AgentProcess.start(dirs, {
    calls: [
      toolCall([
        { id: 'r1', name: 'read_file', args: '{"path":"one.txt"}' },
        { id: 'r2', name: 'read_file', args: '{"path":"two.txt"}' },
      ]),
      textCall(['Both read.']),
    ],
  });
  const res = await agent.firstPrompt(dirs.cwd, 'read');
  expect(res.stopReason).toBe('end_turn');
  // Reads need no permission.
  expect(agent.permissionRequests).toEqual([]);
  expect(updateKinds(agent.updates)).toEqual([
    'tool_call',
    'tool_call',
    'tool_call_update',
    'tool_call_update',
    'tool_call_update',
    'tool_call_update',
    'agent_message_chunk',
  ]);
  const calls = agent.updates.map((u) => u.update).filter((u) => u.sessionUpdate === 'tool_call');
  expect(calls.map((c) => c.sessionUpdate === 'tool_call' && [c.toolCallId, c.kind])).toEqual([
    ['r1', 'read'],
    ['r2', 'read'],
  ]);
  const msgs = agent.requests()[1]!.request.messages;
  expect(
    msgs
      .slice(2)
      .map(
        (m) =>
          m.role === 'tool' && [
            m.toolCallId,
            m.content.includes(m.toolCallId === 'r1' ? 'first file' : 'second file'),
          ],
      ),
  ).toEqual([
    ['r1', true],
    ['r2', true],
  ]);
  await agent.close();
});

test('malformed tool arguments become a tool error the model recovers from', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    calls: [
      toolCall([{ id: 'bad', name: 'read_file', args: '{"path": "x.txt"' }]),
      toolCall([{ id: 'ghost', name: 'no_such_tool', args: '{}' }]),
      textCall(['Sorry, recovered.']),
    ],
  });
  const res = await agent.firstPrompt(dirs.cwd, 'go');
  expect(res.stopReason).toBe('end_turn');
  const failedUpdates = agent.updates
    .map((u) => u.update)
    .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
  expect(failedUpdates.map((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId)).toEqual([
    'bad',
    'ghost',
  ]);
  const reqs = agent.requests();
  const afterBad = reqs[1]!.request.messages.at(-1)!;
  expect(afterBad).toMatchObject({ role: 'tool', toolCallId: 'bad' });
  expect(afterBad.content).toContain('not valid JSON');
  const afterGhost = reqs[2]!.request.messages.at(-1)!;
  expect(afterGhost.content).toContain('there is no tool named "no_such_tool"');
  await agent.close();
});

test('a provider error ends the turn with a JSON-RPC error naming it; a cut stream too; the process goes on', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    calls: [
      {
        chunks: [],
        throw: { message: 'Authentication Fails (invalid api key)', code: 'unauthorized', status: 401 },
      },
      { chunks: [{ type: 'text', text: 'partial' }] },
      textCall(['fine now']),
      { chunks: [{ type: 'finish', reason: 'insufficient_system_resource' }] },
    ],
  });
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const prompt = (text: string) =>
    agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  const err = await prompt('one').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toMatchObject({ code: -32603, data: { code: 'unauthorized', status: 401, turn: 1 } });
  expect((err as Error).message).toContain('HTTP 401');
  expect((err as Error).message).toContain('Authentication Fails');
  const cut = await prompt('two').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(cut).toMatchObject({ code: -32603, data: { code: 'stream_cut', turn: 2 } });
  expect((await prompt('three')).stopReason).toBe('end_turn');
  // The partial text of the cut turn was kept in the conversation.
  expect(agent.requests()[2]!.request.messages.map((m) => [m.role, m.content])).toEqual([
    ['user', 'one'],
    ['user', 'two'],
    ['assistant', 'partial'],
    ['user', 'three'],
  ]);
  await expect(prompt('four')).rejects.toMatchObject({
    code: -32603,
    data: { code: 'insufficient_system_resource' },
  });
  await agent.close();
  const ends = (await readEvents(dirs.persist, sessionId)).filter((e) => e.type === 'turn/end');
  expect(ends).toEqual([
    {
      type: 'turn/end',
      turn: 1,
      kind: 'error',
      error: { message: expect.stringContaining('HTTP 401'), code: 'unauthorized' },
    },
    {
      type: 'turn/end',
      turn: 2,
      kind: 'error',
      error: { message: expect.stringContaining('without a finish'), code: 'stream_cut' },
    },
    { type: 'turn/end', turn: 3, kind: 'completed' },
    {
      type: 'turn/end',
      turn: 4,
      kind: 'error',
      error: {
        message: expect.stringContaining('insufficient system resources'),
        code: 'insufficient_system_resource',
      },
    },
  ]);
});

test('finish reasons map to stop reasons, and the step cap gives max_turn_requests', async () => {
  const dirs = makeDirs();
  writeFileSync(join(dirs.cwd, 'f.txt'), 'x\n');
  const agent = AgentProcess.start(dirs, {
    overlay: { maxStepsPerTurn: 1 },
    calls: [
      textCall(['cut'], 'length'),
      textCall(['no'], 'content_filter'),
      toolCall([{ id: 'c1', name: 'read_file', args: '{"path":"f.txt"}' }]),
    ],
  });
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const prompt = async (text: string) =>
    (await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })).stopReason;
  expect(await prompt('a')).toBe('max_tokens');
  expect(await prompt('b')).toBe('refusal');
  expect(await prompt('c')).toBe('max_turn_requests');
  await agent.close();
  const ends = (await readEvents(dirs.persist, sessionId)).filter((e) => e.type === 'turn/end');
  expect(ends.map((e) => e.type === 'turn/end' && e.kind)).toEqual([
    'max_tokens',
    'refusal',
    'max_turn_requests',
  ]);
});

test('file tools go through the client fs/* methods when the client offers them', async () => {
  const dirs = makeDirs();
  // On disk the file has its saved text; the editor's buffer has newer, unsaved text.
  writeFileSync(join(dirs.cwd, 'buffer.txt'), 'saved text\n');
  const files = new Map<string, string>([[join(dirs.cwd, 'buffer.txt'), 'unsaved editor text\n']]);
  const agent = AgentProcess.start(dirs, {
    overlay: { permissions: { edit: 'allow', command: 'ask' } },
    calls: [
      toolCall([
        { id: 'r', name: 'read_file', args: '{"path":"buffer.txt"}' },
        { id: 'w', name: 'write_file', args: '{"path":"out.txt","content":"from the agent\\n"}' },
      ]),
      textCall(['done']),
    ],
    fs: {
      read: (path) => {
        const text = files.get(path);
        if (text === undefined) throw new Error(`no such buffer: ${path}`);
        return text;
      },
      write: (path, content) => {
        files.set(path, content);
      },
    },
  });
  await agent.initialize({ readTextFile: true, writeTextFile: true });
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const res = await agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'go' }],
  });
  expect(res.stopReason).toBe('end_turn');
  // permissions.edit = allow: no question asked.
  expect(agent.permissionRequests).toEqual([]);
  expect(files.get(join(dirs.cwd, 'out.txt'))).toBe('from the agent\n');
  expect(existsSync(join(dirs.cwd, 'out.txt'))).toBe(false);
  const toolMsgs = agent.requests()[1]!.request.messages.filter((m) => m.role === 'tool');
  expect(toolMsgs[0]!.content).toContain('unsaved editor text');
  await agent.close();
});

test('session/load of an unknown session and a prompt to an unknown session are resource-not-found errors', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, { calls: [] });
  await agent.initialize();
  await expect(
    agent.agent.request('session/load', { sessionId: 'sess-404', cwd: dirs.cwd, mcpServers: [] }),
  ).rejects.toMatchObject({
    code: -32002,
    data: { sessionId: 'sess-404' },
  });
  await expect(
    agent.agent.request('session/prompt', { sessionId: 'sess-404', prompt: [{ type: 'text', text: 'x' }] }),
  ).rejects.toMatchObject({ code: -32002 });
  await expect(
    agent.agent.request('session/new', { cwd: 'relative/dir', mcpServers: [] }),
  ).rejects.toMatchObject({
    code: -32602,
  });
  expect(await agent.close()).toBe(0);
});

test('tool limits come from config: tools.read_file, tools.grep, tools.glob shape what the model is told and sees', async () => {
  const dirs = makeDirs();
  writeFileSync(join(dirs.cwd, 'long.txt'), 'alpha\nbeta\ngamma\ndelta\nepsilon\n');
  const agent = AgentProcess.start(dirs, {
    overlay: {
      tools: {
        read_file: { defaultLimit: 2 },
        grep: { maxMatches: 1 },
        glob: { maxResults: 1 },
      },
    },
    calls: [
      toolCall([
        { id: 'r', name: 'read_file', args: '{"path":"long.txt"}' },
        { id: 'g', name: 'grep', args: '{"pattern":"a"}' },
        { id: 'f', name: 'glob', args: '{"pattern":"*"}' },
      ]),
      textCall(['Done.']),
    ],
  });
  writeFileSync(join(dirs.cwd, 'other.txt'), 'x\n');
  const res = await agent.firstPrompt(dirs.cwd, 'go');
  expect(res.stopReason).toBe('end_turn');
  const [first, second] = agent.requests();
  const described = (name: string) => first!.request.tools.find((t) => t.name === name)?.description ?? '';
  expect(described('read_file')).toContain('Returns up to 2 lines');
  expect(described('grep')).toContain('at most 1 matches');
  const results = new Map(
    second!.request.messages.flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m.content] as const] : [])),
  );
  expect(results.get('r')).toBe(
    '1\talpha\n2\tbeta\n[showing lines 1-2 of 5; call read_file with offset=3 to read on]',
  );
  expect(results.get('g')).toContain(
    '[stopped after 1 matches; narrow the pattern, path or glob to see the rest]',
  );
  expect(results.get('f')).toBe('long.txt\n[1 more of 2 files not shown; use a narrower pattern or path]');
  await agent.close();
});
