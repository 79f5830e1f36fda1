// The live composition end to end: the record overlay, the real openai-compatible plugin, and the
// model emulator as the provider (DeepSeek's wire shape), driven over stdio by the SDK client.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Emulator, startEmulator } from '@acp-snapshot/emulator';
import { expect, test } from '@playwright/test';
import { AgentProcess, makeDirs, readEvents, removeDirs } from './agent-process.js';

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures argument as a destructuring pattern
test.afterEach(({}, testInfo) => removeDirs(testInfo));

let emu: Emulator | undefined;
test.afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

function startLive(dirs: ReturnType<typeof makeDirs>, url: string) {
  return AgentProcess.start(dirs, {
    calls: [],
    overlayPaths: [join('agent', 'overlays', 'record.json')],
    env: {
      ACP_SNAPSHOT_BASE_URL: url,
      DEEPSEEK_API_KEY: 'sk-test-not-a-real-key',
      ACP_SNAPSHOT_PERSIST_ROOT: dirs.persist,
      ACP_SNAPSHOT_SPILL_ROOT: dirs.spill,
    },
  });
}

test('record overlay + openai-compatible plugin: reasoning, a tool call and the answer; reasoning is sent back', async () => {
  const dirs = makeDirs();
  writeFileSync(join(dirs.cwd, 'README.md'), '# Demo project\n');
  emu = await startEmulator({
    script: {
      responses: [
        {
          reply: {
            reasoning: 'Look at the readme.',
            toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }],
          },
        },
        { reply: { text: 'It is a demo project.' } },
      ],
    },
  });
  const agent = startLive(dirs, emu.url);
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  expect(sessionId).toBe('sess-1');
  const res = await agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'what is this?' }],
  });
  expect(res.stopReason).toBe('end_turn');
  const text = agent.updates
    .map((u) => u.update)
    .flatMap((u) =>
      u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [],
    )
    .join('');
  expect(text).toBe('It is a demo project.');
  expect(agent.updates.some((u) => u.update.sessionUpdate === 'agent_thought_chunk')).toBe(true);
  expect(emu.requests.length).toBe(2);
  const second = emu.requests[1]!.body as { model: string; messages: Record<string, unknown>[] };
  expect(second.model).toBe('deepseek-chat');
  const assistant = second.messages.find((m) => m.role === 'assistant')!;
  expect(assistant.reasoning_content).toBe('Look at the readme.');
  expect(second.messages.find((m) => m.role === 'tool')!.content).toContain('# Demo project');
  expect(await agent.close()).toBe(0);
  const events = await readEvents(dirs.persist, sessionId);
  expect(events.filter((e) => e.type === 'llm/request').length).toBe(2);
  expect(events.at(-1)).toEqual({ type: 'turn/end', turn: 1, kind: 'completed' });
});

test('a 401 from the provider ends the turn with a clear JSON-RPC error, without retries or a hang', async () => {
  const dirs = makeDirs();
  emu = await startEmulator({
    script: { responses: [{ fail: { kind: 'http', status: 401 } }, { reply: { text: 'back' } }] },
  });
  const agent = startLive(dirs, emu.url);
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const err = await agent.agent
    .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(err).toMatchObject({ code: -32603, data: { code: 'unauthorized', status: 401, turn: 1 } });
  expect(emu.requests.length).toBe(1);
  // The session is still usable.
  const res = await agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'again' }],
  });
  expect(res.stopReason).toBe('end_turn');
  await agent.close();
});

test('a model that hangs mid-stream is cancelled: the HTTP stream is aborted and the next prompt is served', async () => {
  const dirs = makeDirs();
  emu = await startEmulator({
    script: {
      responses: [
        { fail: { kind: 'hang', afterChunks: 1, reply: { text: 'Starting a long answer that never ends' } } },
        { reply: { text: 'Fresh answer.' } },
      ],
    },
  });
  const agent = startLive(dirs, emu.url);
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const first = agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
  await agent.waitFor(() => agent.updates.some((u) => u.update.sessionUpdate === 'agent_message_chunk'));
  await agent.agent.notify('session/cancel', { sessionId });
  expect((await first).stopReason).toBe('cancelled');
  // The agent dropped the hung HTTP response.
  await emu.waitFor(
    () => emu!.requests[0]?.closed === 'client',
    'the hung request to be closed by the agent',
  );
  const res = await agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'again' }],
  });
  expect(res.stopReason).toBe('end_turn');
  await agent.close();
});
