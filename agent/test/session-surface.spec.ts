// The session surface beyond new/load/prompt through the real agent process: session/list with cursor
// paging, session/resume (no history), session/close, session/delete, session modes (the permission
// policy) and config options (mode, model), each persisted so a fresh process continues with them.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import { expect, test } from '@playwright/test';
import {
  type AgentDirs,
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

const write = (id: string, path: string) =>
  toolCall([{ id, name: 'write_file', args: JSON.stringify({ path, content: 'x\n' }) }]);

/** The JSON-RPC error a request ends in (fails the test if it succeeds). */
async function rpcError(p: Promise<unknown>): Promise<RequestError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof RequestError)) throw new Error(`expected a JSON-RPC error, got ${String(e)}`);
  return e;
}

async function newSession(agent: AgentProcess, dirs: AgentDirs) {
  return agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
}

test('initialize declares list, resume, close and delete; session/new offers modes and config options', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, { calls: [] });
  const init = await agent.initialize();
  expect(init.agentCapabilities?.sessionCapabilities).toEqual({
    list: {},
    resume: {},
    close: {},
    delete: {},
  });
  const created = await newSession(agent, dirs);
  expect(created.modes).toEqual({
    currentModeId: 'ask',
    availableModes: [
      { id: 'ask', name: 'Ask', description: 'Ask before every file edit and every command' },
      { id: 'auto', name: 'Auto', description: 'Edit files and run commands without asking' },
      {
        id: 'read-only',
        name: 'Read only',
        description: 'Read and search, but never edit files or run commands',
      },
    ],
  });
  expect(created.configOptions?.map((o) => [o.id, o.category, o.currentValue])).toEqual([
    ['mode', 'mode', 'ask'],
    ['model', 'model', 'deepseek-chat'],
  ]);
  const model = created.configOptions?.[1];
  expect(model?.type === 'select' && model.options).toEqual([
    { value: 'deepseek-chat', name: 'deepseek-chat' },
    { value: 'deepseek-reasoner', name: 'deepseek-reasoner' },
  ]);
  expect(await agent.close()).toBe(0);
});

test('a configured policy that matches no preset is the current mode "configured", offered first', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, { calls: [], overlay: { permissions: { edit: 'allow' } } });
  await agent.initialize();
  const { modes } = await newSession(agent, dirs);
  expect(modes?.currentModeId).toBe('configured');
  expect(modes?.availableModes.map((m) => [m.id, m.description])).toEqual([
    ['configured', "The agent's configured policy: edits allow, commands ask"],
    ['ask', 'Ask before every file edit and every command'],
    ['auto', 'Edit files and run commands without asking'],
    ['read-only', 'Read and search, but never edit files or run commands'],
  ]);
  expect(await agent.close()).toBe(0);
});

test('the mode decides what a permission request does, is persisted, and holds after session/load', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    name: 'first',
    calls: [
      write('c1', 'a.txt'),
      textCall(['asked']),
      write('c2', 'b.txt'),
      textCall(['no question']),
      write('c3', 'c.txt'),
      textCall(['denied']),
    ],
  });
  await agent.initialize();
  const { sessionId } = await newSession(agent, dirs);
  const prompt = (text: string) =>
    agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });

  await prompt('write a.txt');
  expect(agent.permissionRequests).toHaveLength(1);

  const before = agent.updates.length;
  expect(await agent.agent.request('session/set_mode', { sessionId, modeId: 'auto' })).toEqual({});
  const announced = agent.updates.slice(before).map((u) => u.update);
  expect(announced[0]).toEqual({ sessionUpdate: 'current_mode_update', currentModeId: 'auto' });
  expect(announced[1]?.sessionUpdate).toBe('config_option_update');
  expect(
    announced[1]?.sessionUpdate === 'config_option_update' &&
      announced[1].configOptions.map((o) => o.currentValue),
  ).toEqual(['auto', 'deepseek-chat']);
  await prompt('write b.txt');
  expect(agent.permissionRequests).toHaveLength(1);
  expect(existsSync(join(dirs.cwd, 'b.txt'))).toBe(true);

  await agent.agent.request('session/set_mode', { sessionId, modeId: 'read-only' });
  await prompt('write c.txt');
  expect(agent.permissionRequests).toHaveLength(1);
  expect(existsSync(join(dirs.cwd, 'c.txt'))).toBe(false);
  const denied = agent.requests()[5]!.request.messages.at(-1);
  expect(denied).toEqual({
    role: 'tool',
    toolCallId: 'c3',
    content: 'Denied: this session\'s mode "read-only" does not allow file edits, so the tool did not run.',
  });

  const unknown = await rpcError(agent.agent.request('session/set_mode', { sessionId, modeId: 'yolo' }));
  expect(unknown.code).toBe(-32602);
  expect(unknown.message).toContain('unknown mode "yolo"; this session\'s modes are: ask, auto, read-only');
  await agent.agent.request('session/set_mode', { sessionId, modeId: 'auto' });
  expect(await agent.close()).toBe(0);

  const modes = (await readEvents(dirs.persist, sessionId)).flatMap((e) =>
    e.type === 'session/mode' ? [e.modeId] : [],
  );
  expect(modes).toEqual(['auto', 'read-only', 'auto']);

  const second = AgentProcess.start(dirs, {
    name: 'second',
    calls: [write('c4', 'd.txt'), textCall(['ok'])],
  });
  await second.initialize();
  const loaded = await second.agent.request('session/load', { sessionId, cwd: dirs.cwd, mcpServers: [] });
  expect(loaded.modes?.currentModeId).toBe('auto');
  await second.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'write d.txt' }],
  });
  expect(second.permissionRequests).toHaveLength(0);
  expect(existsSync(join(dirs.cwd, 'd.txt'))).toBe(true);
  expect(await second.close()).toBe(0);
});

test('set_config_option: the model changes the next request, the mode follows, bad values name what is allowed', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, { name: 'first', calls: [textCall(['one'])] });
  await agent.initialize();
  const { sessionId } = await newSession(agent, dirs);
  const set = (configId: string, value: string) =>
    agent.agent.request('session/set_config_option', { sessionId, configId, value });

  const r = await set('model', 'deepseek-reasoner');
  expect(r.configOptions.map((o) => [o.id, o.currentValue])).toEqual([
    ['mode', 'ask'],
    ['model', 'deepseek-reasoner'],
  ]);
  await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
  expect(agent.requests()[0]!.request.model).toBe('deepseek-reasoner');

  const before = agent.updates.length;
  expect((await set('mode', 'auto')).configOptions[0]!.currentValue).toBe('auto');
  expect(agent.updates.slice(before).map((u) => u.update)).toEqual([
    { sessionUpdate: 'current_mode_update', currentModeId: 'auto' },
  ]);

  const badModel = await rpcError(set('model', 'gpt-x'));
  expect(badModel.code).toBe(-32602);
  expect(badModel.message).toContain(
    'unknown model "gpt-x"; this session offers: deepseek-chat, deepseek-reasoner',
  );
  const badId = await rpcError(set('temperature', '1'));
  expect(badId.message).toContain('unknown config option "temperature"');
  const boolean = await rpcError(
    agent.agent.request('session/set_config_option', {
      sessionId,
      configId: 'model',
      type: 'boolean',
      value: true,
    }),
  );
  expect(boolean.message).toContain('is a select: give one of its values as a string');
  expect(await agent.close()).toBe(0);

  const events = await readEvents(dirs.persist, sessionId);
  expect(events.filter((e) => e.type === 'session/config' || e.type === 'session/mode')).toEqual([
    { type: 'session/config', configId: 'model', value: 'deepseek-reasoner' },
    { type: 'session/mode', modeId: 'auto' },
  ]);

  const second = AgentProcess.start(dirs, { name: 'second', calls: [textCall(['two'])] });
  await second.initialize();
  const resumed = await second.agent.request('session/resume', { sessionId, cwd: dirs.cwd });
  expect(resumed.configOptions?.map((o) => o.currentValue)).toEqual(['auto', 'deepseek-reasoner']);
  await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
  expect(second.requests()[0]!.request.model).toBe('deepseek-reasoner');
  expect(await second.close()).toBe(0);
});

test('session/resume in a fresh process shows no history and continues the conversation', async () => {
  const dirs = makeDirs();
  const first = AgentProcess.start(dirs, { name: 'first', calls: [textCall(['The word is PAPAYA.'])] });
  const { sessionId } = await first.firstPrompt(dirs.cwd, 'remember PAPAYA');
  expect(await first.close()).toBe(0);

  const second = AgentProcess.start(dirs, { name: 'second', calls: [textCall(['PAPAYA'])] });
  await second.initialize();
  const resumed = await second.agent.request('session/resume', { sessionId, cwd: dirs.cwd });
  expect(resumed.modes?.currentModeId).toBe('ask');
  expect(second.updates).toEqual([]);
  const res = await second.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'which word?' }],
  });
  expect(res.stopReason).toBe('end_turn');
  expect(updateKinds(second.updates)).toEqual(['agent_message_chunk']);
  expect(second.requests()[0]!.request.messages).toEqual([
    { role: 'user', content: 'remember PAPAYA' },
    { role: 'assistant', content: 'The word is PAPAYA.' },
    { role: 'user', content: 'which word?' },
  ]);
  expect(await second.close()).toBe(0);
  const boundaries = (await readEvents(dirs.persist, sessionId)).filter((e) => e.type === 'boundary');
  expect(boundaries).toEqual([{ type: 'boundary', kind: 'resume', method: 'session/resume' }]);

  const third = AgentProcess.start(dirs, { name: 'third', calls: [] });
  await third.initialize();
  const missing = await rpcError(third.agent.request('session/resume', { sessionId: 'nope', cwd: dirs.cwd }));
  expect(missing.code).toBe(-32002);
  expect(await third.close()).toBe(0);
});

test('session/list: newest first, titled by the first prompt, filtered by cwd, paged by an opaque cursor', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    calls: [textCall(['a']), textCall(['b'])],
    overlay: { sessionList: { pageSize: 1 } },
  });
  await agent.initialize();
  const one = await newSession(agent, dirs);
  await agent.agent.request('session/prompt', {
    sessionId: one.sessionId,
    prompt: [{ type: 'text', text: `fix the tests\nin ${dirs.cwd}` }],
  });
  const two = await newSession(agent, dirs);
  const first = await agent.agent.request('session/list', {});
  expect(first.sessions).toEqual([
    {
      sessionId: two.sessionId,
      cwd: dirs.cwd,
      updatedAt: expect.stringMatching(/^2025-01-01T00:00:\d\d\.000Z$/),
    },
  ]);
  expect(typeof first.nextCursor).toBe('string');
  const second = await agent.agent.request('session/list', { cursor: first.nextCursor! });
  expect(second.sessions.map((s) => [s.sessionId, s.title])).toEqual([[one.sessionId, 'fix the tests']]);
  expect(second.nextCursor).toBeUndefined();
  expect(second.sessions[0]!.updatedAt! < first.sessions[0]!.updatedAt!).toBe(true);

  expect((await agent.agent.request('session/list', { cwd: join(dirs.root, 'elsewhere') })).sessions).toEqual(
    [],
  );
  expect((await agent.agent.request('session/list', { cwd: dirs.cwd })).sessions).toHaveLength(1);
  const badCursor = await rpcError(agent.agent.request('session/list', { cursor: 'not-a-cursor' }));
  expect(badCursor.code).toBe(-32602);
  expect(badCursor.message).toContain('cursor is not one this agent returned');
  const relative = await rpcError(agent.agent.request('session/list', { cwd: 'work' }));
  expect(relative.code).toBe(-32602);
  // A file that is not a session log is left out, not fatal.
  writeFileSync(join(dirs.persist, 'junk.jsonl'), 'not a log\n');
  const afterJunk = await agent.agent.request('session/list', { cursor: first.nextCursor! });
  expect(afterJunk.sessions.map((s) => s.sessionId)).toEqual([one.sessionId]);
  expect(await agent.close()).toBe(0);
  expect(agent.stderr).toContain('session/list: leaving out');
});

test('session/close cancels the running turn, marks the log, and ends the session in this process', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    name: 'first',
    calls: [{ chunks: [{ type: 'text', text: 'Thinking' }], hang: true }],
  });
  await agent.initialize();
  const { sessionId } = await newSession(agent, dirs);
  const pending = agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'go' }],
  });
  await agent.waitFor(() => agent.updates.length > 0);
  expect(await agent.agent.request('session/close', { sessionId })).toEqual({});
  expect((await pending).stopReason).toBe('cancelled');
  const gone = await rpcError(
    agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] }),
  );
  expect(gone.code).toBe(-32002);
  expect(await agent.close()).toBe(0);
  const types = (await readEvents(dirs.persist, sessionId)).map((e) => e.type);
  expect(types.slice(-2)).toEqual(['turn/end', 'session/close']);

  // A closed session stays listed and can be resumed.
  const second = AgentProcess.start(dirs, { name: 'second', calls: [] });
  await second.initialize();
  expect((await second.agent.request('session/list', {})).sessions.map((s) => s.sessionId)).toEqual([
    sessionId,
  ]);
  await second.agent.request('session/resume', { sessionId, cwd: dirs.cwd });
  expect(await second.close()).toBe(0);
});

test('session/delete removes the log (live or not); unknown and path-like ids succeed and touch nothing', async () => {
  const dirs = makeDirs();
  const outside = join(dirs.root, 'outside.jsonl');
  writeFileSync(outside, 'keep me\n');
  const agent = AgentProcess.start(dirs, { calls: [] });
  await agent.initialize();
  const a = await newSession(agent, dirs);
  const b = await newSession(agent, dirs);
  expect(await agent.agent.request('session/delete', { sessionId: a.sessionId })).toEqual({});
  expect(existsSync(join(dirs.persist, `${a.sessionId}.jsonl`))).toBe(false);
  expect((await agent.agent.request('session/list', {})).sessions.map((s) => s.sessionId)).toEqual([
    b.sessionId,
  ]);
  const gone = await rpcError(
    agent.agent.request('session/prompt', { sessionId: a.sessionId, prompt: [{ type: 'text', text: 'x' }] }),
  );
  expect(gone.code).toBe(-32002);
  expect(await agent.agent.request('session/delete', { sessionId: 'never-created' })).toEqual({});
  expect(await agent.agent.request('session/delete', { sessionId: '../outside' })).toEqual({});
  expect(existsSync(outside)).toBe(true);
  expect(await agent.close()).toBe(0);
  expect(existsSync(join(dirs.persist, `${b.sessionId}.jsonl`))).toBe(true);
});
