// Session lifecycle through the real agent process: cancel, load in a new process, compaction, and
// startup failures of the composition root.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLogFile } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import {
  AgentProcess,
  agentMain,
  makeDirs,
  readEvents,
  removeDirs,
  repoRoot,
  textCall,
  toolCall,
  updateKinds,
} from './agent-process.js';

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures argument as a destructuring pattern
test.afterEach(({}, testInfo) => removeDirs(testInfo));

test('cancel mid-stream resolves cancelled; a late cancel does not leak; the process serves the next prompt', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    calls: [
      { chunks: [{ type: 'text', text: 'Thinking about' }], hang: true },
      textCall(['ok']),
      textCall(['still ok']),
    ],
  });
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const prompt = (text: string) =>
    agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  const first = prompt('start');
  await agent.waitFor(() => agent.updates.some((u) => u.update.sessionUpdate === 'agent_message_chunk'));
  // One prompt at a time per session.
  await expect(prompt('overlapping')).rejects.toMatchObject({ code: -32600 });
  await agent.agent.notify('session/cancel', { sessionId });
  expect((await first).stopReason).toBe('cancelled');

  expect((await prompt('again')).stopReason).toBe('end_turn');
  // A cancel between turns is a no-op for the next one.
  await agent.agent.notify('session/cancel', { sessionId });
  expect((await prompt('third')).stopReason).toBe('end_turn');

  // The partial answer stays in the conversation.
  expect(agent.requests()[1]!.request.messages).toEqual([
    { role: 'user', content: 'start' },
    { role: 'assistant', content: 'Thinking about' },
    { role: 'user', content: 'again' },
  ]);
  expect(await agent.close()).toBe(0);
  const ends = (await readEvents(dirs.persist, sessionId)).filter((e) => e.type === 'turn/end');
  expect(ends.map((e) => e.type === 'turn/end' && e.kind)).toEqual(['cancelled', 'completed', 'completed']);
});

test('cancel while a permission request is pending settles it and ends the turn cancelled', async () => {
  const dirs = makeDirs();
  let release: () => void = () => {};
  const cancelled = new Promise<void>((resolve) => {
    release = resolve;
  });
  const agent = AgentProcess.start(dirs, {
    calls: [
      toolCall([{ id: 'w1', name: 'write_file', args: '{"path":"x.txt","content":"x"}' }]),
      textCall(['next']),
    ],
    // Like an editor: the question stays open until the user cancels the turn, then it is answered cancelled.
    answer: async () => {
      await cancelled;
      return { outcome: 'cancelled' };
    },
  });
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const res = agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write' }] });
  await agent.waitFor(() => agent.permissionRequests.length === 1);
  await agent.agent.notify('session/cancel', { sessionId });
  release();
  expect((await res).stopReason).toBe('cancelled');
  expect(existsSync(join(dirs.cwd, 'x.txt'))).toBe(false);
  const last = agent.updates.at(-1)!.update;
  expect(last).toMatchObject({ sessionUpdate: 'tool_call_update', toolCallId: 'w1', status: 'failed' });
  // The conversation stays valid: the unanswered call got a tool result.
  expect(
    (await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ok' }] }))
      .stopReason,
  ).toBe('end_turn');
  expect(agent.requests()[1]!.request.messages.map((m) => m.role)).toEqual([
    'user',
    'assistant',
    'tool',
    'user',
  ]);
  await agent.close();
});

test('session/load in a new process replays the history before responding and continues the conversation', async () => {
  const dirs = makeDirs();
  writeFileSync(join(dirs.cwd, 'notes.txt'), 'remember me\n');
  const first = AgentProcess.start(dirs, {
    name: 'first',
    calls: [
      toolCall([{ id: 'r1', name: 'read_file', args: '{"path":"notes.txt"}' }], 'Read it first.'),
      textCall(['It says remember me.']),
    ],
  });
  await first.initialize();
  const { sessionId } = await first.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  await first.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'what is in notes.txt?' }],
  });
  const liveConversation = first.requests()[1]!.request.messages;
  expect(await first.close()).toBe(0);

  const second = AgentProcess.start(dirs, { name: 'second', calls: [textCall(['Yes.'])] });
  const init = await second.initialize();
  expect(init.agentCapabilities?.loadSession).toBe(true);
  await second.agent.request('session/load', { sessionId, cwd: dirs.cwd, mcpServers: [] });
  // Everything was replayed before the response arrived.
  expect(updateKinds(second.updates)).toEqual([
    'user_message_chunk',
    'agent_thought_chunk',
    'tool_call',
    'tool_call_update',
    'agent_message_chunk',
  ]);
  expect(second.updates[0]!.update).toMatchObject({
    content: { type: 'text', text: 'what is in notes.txt?' },
  });
  expect(second.updates[2]!.update).toMatchObject({ toolCallId: 'r1', kind: 'read' });
  expect(second.updates[3]!.update).toMatchObject({ toolCallId: 'r1', status: 'completed' });
  expect(second.updates[4]!.update).toMatchObject({ content: { text: 'It says remember me.' } });

  const res = await second.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'sure?' }],
  });
  expect(res.stopReason).toBe('end_turn');
  const [req] = second.requests();
  expect(req!.turn).toBe(2);
  expect(req!.request.messages).toEqual([
    ...liveConversation,
    { role: 'assistant', content: 'It says remember me.' },
    { role: 'user', content: 'sure?' },
  ]);
  expect(await second.close()).toBe(0);

  const events = await readEvents(dirs.persist, sessionId);
  const boundary = events.findIndex((e) => e.type === 'boundary');
  expect(events[boundary]).toEqual({ type: 'boundary', kind: 'resume' });
  expect(events[boundary + 1]).toEqual({ type: 'turn/start', turn: 2 });
  // A new session in the second process does not reuse the loaded session's id.
  const third = AgentProcess.start(dirs, { name: 'third', calls: [] });
  await third.initialize();
  const fresh = await third.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  expect(fresh.sessionId).not.toBe(sessionId);
  await third.close();
});

test('compaction summarizes older messages through the plugin and the turn completes', async () => {
  const dirs = makeDirs();
  const agent = AgentProcess.start(dirs, {
    // Any real context is over this budget; only the most recent message is kept verbatim.
    overlay: { compaction: { budgetTokens: 50, keepRecentMessages: 1 } },
    calls: [
      textCall(['A long first answer.']),
      { purpose: 'compaction', ...textCall(['SUMMARY: user said first; agent answered.']) },
      textCall(['Second answer.']),
    ],
  });
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const prompt = (text: string) =>
    agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  expect((await prompt('first')).stopReason).toBe('end_turn');
  expect((await prompt('second')).stopReason).toBe('end_turn');
  const [, summaryReq, afterReq] = agent.requests();
  expect(summaryReq!.request.purpose).toBe('compaction');
  expect(summaryReq!.request.tools).toEqual([]);
  expect(summaryReq!.request.messages[0]!.content).toContain('A long first answer.');
  expect([summaryReq!.turn, summaryReq!.step]).toEqual([2, 1]);
  expect(afterReq!.request.messages).toEqual([
    { role: 'summary', content: 'SUMMARY: user said first; agent answered.' },
    { role: 'user', content: 'second' },
  ]);
  // The summary call streams nothing to the client.
  expect(updateKinds(agent.updates)).toEqual(['agent_message_chunk', 'agent_message_chunk']);
  await agent.close();

  const events = await readEvents(dirs.persist, sessionId);
  const i = events.findIndex((e) => e.type === 'compaction/summary');
  expect(events[i - 1]).toMatchObject({ type: 'llm/request', turn: 2, step: 1, purpose: 'compaction' });
  expect(events[i]).toEqual({
    type: 'compaction/summary',
    turn: 2,
    rawOutput: 'SUMMARY: user said first; agent answered.',
    replacedMessages: 2,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    llmStreamCall: true,
  });
  expect(events[i + 1]).toEqual({ type: 'boundary', kind: 'compaction', turn: 2 });
  expect(events[i + 2]).toMatchObject({ type: 'llm/request', turn: 2, step: 1, purpose: 'turn' });
  // No assistant chunks for the summary call: replay rebuilds them from rawOutput.
  expect(events.filter((e) => e.type === 'assistant/chunk' && e.turn === 2).length).toBe(2);
});

function runAgent(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [agentMain, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    input: '',
    encoding: 'utf8',
  });
}

test('an unknown plugin name fails at startup naming llm.plugin and the known names', () => {
  const dirs = makeDirs();
  const overlay = join(dirs.root, 'bad.json');
  writeFileSync(
    overlay,
    JSON.stringify({ llm: { plugin: 'nope' }, persistRoot: dirs.persist, spillRoot: dirs.spill }),
  );
  const r = runAgent(['--overlay', overlay], { HOME: dirs.home });
  expect(r.status).not.toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain(
    'config error: llm.plugin: unknown plugin "nope"; known plugins: deepseek, openai-compatible, replay',
  );
});

test('a plugin module without createPlugin fails at startup naming llm.module', () => {
  const dirs = makeDirs();
  const mod = join(dirs.root, 'empty-plugin.mjs');
  writeFileSync(mod, 'export const somethingElse = 1;\n');
  const overlay = join(dirs.root, 'bad.json');
  writeFileSync(overlay, JSON.stringify({ llm: { plugin: 'custom', module: mod } }));
  const r = runAgent(['--overlay', overlay], { HOME: dirs.home });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain(`config error: llm.module: module ${mod} does not export createPlugin(opts)`);
});

test('the plugin loads while initialize is answered; one that then fails still exits 1 with its config error', () => {
  const dirs = makeDirs();
  const mod = join(dirs.root, 'throwing-plugin.mjs');
  writeFileSync(mod, "throw new Error('no credentials file at /root/.config/x.json');\n");
  const overlay = join(dirs.root, 'bad.json');
  writeFileSync(
    overlay,
    JSON.stringify({
      llm: { plugin: 'custom', module: mod },
      persistRoot: dirs.persist,
      spillRoot: dirs.spill,
    }),
  );
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } };
  const r = spawnSync(process.execPath, [agentMain, '--overlay', overlay], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: dirs.home },
    input: `${JSON.stringify(initialize)}\n`,
    encoding: 'utf8',
  });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(
    `config error: llm.module: cannot load module ${mod}: no credentials file at /root/.config/x.json`,
  );
  // Whatever was answered before the failure is a well-formed initialize response, never half a line.
  for (const line of r.stdout.split('\n').filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ id: 1 });
});

test('a missing environment variable in the replay overlay fails at startup naming the config key', () => {
  const dirs = makeDirs();
  const r = runAgent(['--overlay', 'agent/overlays/replay.json'], {
    HOME: dirs.home,
    ACP_SNAPSHOT_SCENARIO: 'x',
    ACP_SNAPSHOT_PERSIST_ROOT: dirs.persist,
    ACP_SNAPSHOT_SPILL_ROOT: dirs.spill,
  });
  expect(r.status).not.toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain(
    'config error: llm.options.fixture: environment variable ACP_SNAPSHOT_FIXTURE is not set',
  );
  expect(r.stderr).toContain('agent/overlays/replay.json');
});

test('an invalid config value fails at startup naming the key', () => {
  const dirs = makeDirs();
  const overlay = join(dirs.root, 'bad.json');
  writeFileSync(overlay, JSON.stringify({ permissions: { edit: 'sometimes' } }));
  const r = runAgent(['--overlay', overlay], { HOME: dirs.home });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('config error: permissions.edit:');
  expect(r.stderr).toContain(overlay);
});

test('ACP_SNAPSHOT_AGENT_CONFIG is merged last: its step cap and permissions win over the overlays', async () => {
  const dirs = makeDirs();
  writeFileSync(join(dirs.cwd, 'f.txt'), 'x\n');
  const scenarioConfig = join(dirs.root, 'agent-config.json');
  writeFileSync(scenarioConfig, JSON.stringify({ maxStepsPerTurn: 1, permissions: { command: 'deny' } }));
  const read = { id: 'c1', name: 'read_file', args: '{"path":"f.txt"}' };
  const agent = AgentProcess.start(dirs, {
    overlay: { maxStepsPerTurn: 5 },
    calls: [toolCall([read]), textCall(['never served'])],
    env: { ACP_SNAPSHOT_AGENT_CONFIG: scenarioConfig },
  });
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const r = await agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'go' }],
  });
  expect(r.stopReason).toBe('max_turn_requests');
  await agent.close();
  const events = await readEvents(dirs.persist, sessionId);
  const header = events[0];
  expect(header?.type === 'session/header' && header.config).toMatchObject({
    maxStepsPerTurn: 1,
    permissions: { edit: 'ask', command: 'deny' },
  });
  expect(events.filter((e) => e.type === 'llm/request')).toHaveLength(1);
});

test("a scenario config may not set what the mode's overlay owns, and its mistakes name the key and file", () => {
  const dirs = makeDirs();
  const scenarioConfig = join(dirs.root, 'agent-config.json');
  const run = (json: unknown) => {
    writeFileSync(scenarioConfig, JSON.stringify(json));
    return runAgent(['--overlay', 'agent/overlays/record.json'], {
      HOME: dirs.home,
      ACP_SNAPSHOT_PERSIST_ROOT: dirs.persist,
      ACP_SNAPSHOT_SPILL_ROOT: dirs.spill,
      ACP_SNAPSHOT_AGENT_CONFIG: scenarioConfig,
    });
  };
  const owned = run({ llm: { plugin: 'deepseek' }, clock: { kind: 'system' } });
  expect(owned.status).toBe(1);
  expect(owned.stdout).toBe('');
  expect(owned.stderr).toBe(
    `config error: llm.plugin: a scenario's config may not set it (in ${scenarioConfig}, named by ACP_SNAPSHOT_AGENT_CONFIG); the mode's overlay owns the model plugin, roots, clock, ids and compression. Remove the key from the scenario's agent config.\n` +
      `config error: clock: a scenario's config may not set it (in ${scenarioConfig}, named by ACP_SNAPSHOT_AGENT_CONFIG); the mode's overlay owns the model plugin, roots, clock, ids and compression. Remove the key from the scenario's agent config.\n`,
  );
  const invalid = run({ compaction: { budgetTokens: 0 } });
  expect(invalid.status).toBe(1);
  expect(invalid.stderr).toMatch(
    new RegExp(
      `^config error: compaction\\.budgetTokens: .*\\(in ${scenarioConfig.replaceAll('.', '\\.')}\\)\n$`,
    ),
  );
});

test('after a kill -9 mid-turn, session/load closes the interrupted turn and the conversation continues', async () => {
  const dirs = makeDirs();
  const first = AgentProcess.start(dirs, {
    name: 'first',
    calls: [toolCall([{ id: 'w1', name: 'write_file', args: '{"path":"x.txt","content":"x"}' }])],
    // The question is never answered: the process dies while it waits.
    answer: () => new Promise(() => {}),
  });
  await first.initialize();
  const { sessionId } = await first.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  void first.agent
    .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write' }] })
    .catch(() => {});
  await first.waitFor(() => first.permissionRequests.length === 1);
  first.child.kill('SIGKILL');
  await first.exited;

  const second = AgentProcess.start(dirs, { name: 'second', calls: [textCall(['recovered'])] });
  await second.initialize();
  await second.agent.request('session/load', { sessionId, cwd: dirs.cwd, mcpServers: [] });
  expect(updateKinds(second.updates)).toEqual(['user_message_chunk', 'tool_call', 'tool_call_update']);
  expect(second.updates[2]!.update).toMatchObject({ toolCallId: 'w1', status: 'failed' });
  const res = await second.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'again' }],
  });
  expect(res.stopReason).toBe('end_turn');
  expect(second.requests()[0]!.request.messages.map((m) => m.role)).toEqual([
    'user',
    'assistant',
    'tool',
    'user',
  ]);
  expect(second.requests()[0]!.turn).toBe(2);
  await second.close();
  const events = await readEvents(dirs.persist, sessionId);
  expect(events.find((e) => e.type === 'turn/end')).toEqual({
    type: 'turn/end',
    turn: 1,
    kind: 'error',
    error: { message: 'the agent process stopped before this turn ended', code: 'interrupted' },
  });
});

test('the default gzip persistence writes <id>.jsonl.gz, and such a session loads in a new process', async () => {
  const dirs = makeDirs();
  const first = AgentProcess.start(dirs, {
    name: 'first',
    overlay: { persistenceCompression: 'gzip' },
    calls: [textCall(['zipped'])],
  });
  await first.initialize();
  const { sessionId } = await first.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
  expect(await first.close()).toBe(0);
  const path = join(dirs.persist, `${sessionId}.jsonl.gz`);
  expect(readFileSync(path).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

  const second = AgentProcess.start(dirs, {
    name: 'second',
    overlay: { persistenceCompression: 'gzip' },
    calls: [],
  });
  await second.initialize();
  await second.agent.request('session/load', { sessionId, cwd: dirs.cwd, mcpServers: [] });
  expect(updateKinds(second.updates)).toEqual(['user_message_chunk', 'agent_message_chunk']);
  expect(await second.close()).toBe(0);
  const { records } = await readLogFile(path);
  expect(records.map((r) => r.event.type).slice(-1)).toEqual(['boundary']);
});
