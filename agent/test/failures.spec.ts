// The failure catalog at the agent layer: every case marked 'agent' runs the real agent process (record
// overlay, openai-compatible plugin) against the model emulator scripted with the case's responses.
// Each must end as the catalog says (a JSON-RPC error or a stop reason, with a readable message), keep
// the process serving the next prompt, and lose nothing from the persisted log. killed-mid-turn kills
// the agent with SIGKILL (while the model streams, and while its bash tool runs) and checks that no
// process is left behind and that the log reads back and loads in a fresh process.

import { appendFileSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type FailureCase, failureCase, failureCasesFor } from '@acp-snapshot/core/testing';
import { type Emulator, startEmulator } from '@acp-snapshot/emulator';
import { type LogRecord, readLogFile, type SessionEvent } from '@acp-snapshot/session-log';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { expect, test } from '@playwright/test';
import { type AgentDirs, AgentProcess, makeDirs, removeDirs, updateKinds } from './agent-process.js';

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures argument as a destructuring pattern
test.afterEach(({}, testInfo) => removeDirs(testInfo));

let emu: Emulator | undefined;
test.afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** Every case must end well within this (the SDK's retries of 429 / 5xx included). */
const CASE_TIMEOUT_MS = 15_000;
/** The model's answer to the prompt that follows the failure: the process must still serve it. */
const NEXT_ANSWER = 'Back again.';
/** A line of a JavaScript stack trace. */
const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

/** The agent with the live composition (agent/overlays/record.json) against `url`. */
function startLive(dirs: AgentDirs, url: string, name = 'run'): AgentProcess {
  return AgentProcess.start(dirs, {
    name,
    calls: [],
    overlayPaths: [join('agent', 'overlays', 'record.json')],
    env: {
      ACP_SNAPSHOT_BASE_URL: url,
      DEEPSEEK_API_KEY: 'sk-test-failure-catalog',
      ACP_SNAPSHOT_PERSIST_ROOT: dirs.persist,
      ACP_SNAPSHOT_SPILL_ROOT: dirs.spill,
    },
  });
}

/** The text of the agent_message_chunk updates among `updates`. */
function messageText(updates: SessionNotification[]): string {
  return updates
    .map((u) => u.update)
    .flatMap((u) =>
      u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [],
    )
    .join('');
}

/** The text of the tool_call_update contents among `updates` (what a client shows as tool results). */
function toolResultText(updates: SessionNotification[]): string {
  return updates
    .map((u) => u.update)
    .flatMap((u) =>
      u.sessionUpdate === 'tool_call_update'
        ? (u.content ?? []).flatMap((c) =>
            c.type === 'content' && c.content.type === 'text' ? [c.content.text] : [],
          )
        : [],
    )
    .join('\n');
}

/** The raw records of a persisted session log and the reader's warnings (a torn tail is one). */
async function readLog(
  dirs: AgentDirs,
  sessionId: string,
): Promise<{ records: LogRecord[]; warnings: string[] }> {
  const { records, warnings } = await readLogFile(join(dirs.persist, `${sessionId}.jsonl`));
  return { records, warnings };
}

/** Sequence numbers strictly increase from 0 with no gaps or repeats (docs/architecture.md, "Invariants"). */
function expectGaplessSeq(records: LogRecord[]): void {
  const seqs = records.map((r) => r.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i));
}

/** The events of one turn, in log order. */
function turnEvents(records: LogRecord[], turn: number): SessionEvent[] {
  return records.map((r) => r.event).filter((e) => 'turn' in e && e.turn === turn);
}

/** The text the log holds as streamed assistant chunks of a turn. */
function loggedChunkText(events: SessionEvent[]): string {
  return events
    .flatMap((e) => (e.type === 'assistant/chunk' && e.chunk.type === 'text' ? [e.chunk.text] : []))
    .join('');
}

/** Live processes (other than this one) whose cwd is inside `root`, or whose environment names `root`. */
function processesUnder(root: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (state === 'Z') continue; // exited, only waiting to be reaped
      if (cwd === root || cwd.startsWith(`${root}/`) || environ.includes(root)) {
        found.push({
          pid,
          cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim(),
        });
      }
    } catch {
      // The process ended while we looked, or is not ours to inspect.
    }
  }
  return found;
}

/** Test directories whose processes are killed after the test, so a failed orphan check leaks nothing. */
const watched: string[] = [];
test.afterEach(() => {
  for (const root of watched.splice(0)) {
    for (const { pid } of processesUnder(root)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});

type Outcome =
  | { result: { stopReason: string } }
  | { error: { code: number; message: string; data?: unknown } };

/** What each case's prompt provokes, checked against the catalog; then the next prompt and the log. */
async function runCase(c: FailureCase): Promise<void> {
  if (!c.emulator) throw new Error(`catalog case ${c.id} has no emulator responses`);
  const dirs = makeDirs();
  emu = await startEmulator({
    script: { responses: [...(c.emulator as never[]), { reply: { text: NEXT_ANSWER } }] },
  });
  const agent = startLive(dirs, emu.url);
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const pending = agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: c.prompt ?? 'Say hello.' }],
  });
  if (c.expect.stopReason === 'cancelled') {
    await agent.waitFor(() => agent.updates.some((u) => u.update.sessionUpdate === 'agent_message_chunk'));
    await agent.agent.notify('session/cancel', { sessionId });
  }
  const outcome: Outcome = await pending.then(
    (result) => ({ result }),
    (error: { code: number; message: string; data?: unknown }) => ({ error }),
  );
  const firstTurn = [...agent.updates];

  // What the ACP client observes.
  if (c.expect.rpcErrorCode !== undefined) {
    expect(outcome, 'the prompt must fail with a JSON-RPC error').toHaveProperty('error');
    const { error } = outcome as Extract<Outcome, { error: unknown }>;
    const httpStatus = (c.emulator[0] as { fail?: { kind: string; status?: number } }).fail;
    expect(error).toMatchObject({
      code: c.expect.rpcErrorCode,
      data: {
        code: c.expect.llmErrorCode,
        turn: 1,
        ...(httpStatus?.kind === 'http' ? { status: httpStatus.status } : {}),
      },
    });
    expect(error.message).toMatch(c.expect.message);
    // stderr says the same in a readable line, and carries no stack trace. It is written before the response,
    // but on another pipe: the response may be read first.
    const line = `turn 1 of ${sessionId} failed: ${error.message}`;
    await expect.poll(() => agent.stderr).toContain(line);
  } else {
    expect(outcome, 'the prompt must end with a stop reason').toHaveProperty('result');
    const { stopReason } = (outcome as Extract<Outcome, { result: unknown }>).result;
    expect(stopReason).toBe(c.expect.stopReason);
    expect(`stop reason ${stopReason}\n${toolResultText(firstTurn)}`).toMatch(c.expect.message);
  }
  expect(agent.stderr).not.toMatch(STACK_LINE);
  if (c.expect.stopReason === 'cancelled') {
    await emu.waitFor(
      () => emu!.requests[0]?.closed === 'client',
      'the hung request to be dropped by the agent',
    );
  }

  // The process stays alive and serves the next prompt.
  const next = await agent.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'Try again.' }],
  });
  expect(next.stopReason).toBe('end_turn');
  expect(messageText(agent.updates.slice(firstTurn.length))).toBe(NEXT_ANSWER);
  // Every scripted response was asked for, no more (the SDK's retries consume the 429 / 5xx entries).
  expect(emu.requests.map((r) => r.served)).toEqual(
    [...c.emulator, { reply: {} }].map((e) =>
      'fail' in (e as object) ? `fail:${(e as { fail: { kind: string } }).fail.kind}` : 'reply',
    ),
  );
  expect(await agent.close()).toBe(0);

  // Nothing lost from the log: every chunk the client saw is there, and both turns are closed.
  const { records, warnings } = await readLog(dirs, sessionId);
  expect(warnings).toEqual([]);
  expectGaplessSeq(records);
  const one = turnEvents(records, 1);
  expect(one[0]).toEqual({ type: 'turn/start', turn: 1 });
  expect(one[1]).toMatchObject({ type: 'message/committed', message: { role: 'user' } });
  expect(one.filter((e) => e.type === 'llm/request').length).toBeGreaterThan(0);
  const seen = messageText(firstTurn);
  expect(loggedChunkText(one)).toBe(seen);
  if (seen) {
    // What the user saw of a failed or cancelled answer is committed to the conversation.
    const committed = one.filter((e) => e.type === 'message/committed' && e.message.role === 'assistant');
    expect(committed.map((e) => (e as { message: { content: string } }).message.content).join('')).toBe(seen);
  }
  const end = one.at(-1)!;
  expect(end).toMatchObject({ type: 'turn/end', kind: c.expect.turnEnd });
  if (c.expect.turnEnd === 'error') {
    expect(end).toMatchObject({ error: { code: c.expect.llmErrorCode } });
    expect((end as { error: { message: string } }).error.message).toMatch(c.expect.message);
  }
  expect(turnEvents(records, 2).at(-1)).toEqual({ type: 'turn/end', turn: 2, kind: 'completed' });
}

const KILLED = 'killed-mid-turn';
const cases = failureCasesFor('agent');

test('every agent case of the catalog is exercised here', () => {
  expect(cases.length).toBeGreaterThan(0);
  for (const c of cases) {
    if (c.id === KILLED) continue;
    expect(c.emulator, `${c.id}: emulator responses`).toBeDefined();
    expect(c.expect.rpcErrorCode !== undefined || c.expect.stopReason !== undefined, c.id).toBe(true);
  }
  expect(cases.map((c) => c.id)).toContain(KILLED);
});

for (const c of cases.filter((x) => x.id !== KILLED)) {
  test(`${c.id}: ${c.title}`, async () => {
    test.setTimeout(CASE_TIMEOUT_MS);
    await runCase(c);
  });
}

/**
 * Kills the agent with SIGKILL once `ready` holds, then checks: no process of the test is left, every
 * event the client saw acknowledged is in the log, the log reads back (also with a torn tail, which is
 * reported), and session/load in a fresh process closes the interrupted turn and serves a new prompt.
 */
async function killMidTurn(opts: {
  responses: unknown[];
  prompt: string;
  ready: (agent: AgentProcess, dirs: AgentDirs) => boolean | Promise<boolean>;
  /** Checks on turn 1 as the killed process left it in the log. */
  logged: (events: SessionEvent[], seen: SessionNotification[]) => void;
  /** The history session/load replays. */
  replayed: string[];
  /** Checks on what the fresh process showed and logged when it closed the interrupted turn. */
  resumed: (loaded: SessionNotification[], closing: SessionEvent[], logged: SessionEvent[]) => void;
}): Promise<void> {
  const dirs = makeDirs();
  watched.push(dirs.root);
  emu = await startEmulator({
    script: { responses: [...(opts.responses as never[]), { reply: { text: NEXT_ANSWER } }] },
  });
  const first = startLive(dirs, emu.url, 'killed');
  await first.initialize();
  const { sessionId } = await first.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  void first.agent
    .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: opts.prompt }] })
    .catch(() => {});
  await expect.poll(() => opts.ready(first, dirs), { timeout: 10_000 }).toBe(true);
  const seen = [...first.updates];
  first.child.kill('SIGKILL');
  await first.exited;
  expect(first.child.signalCode).toBe('SIGKILL');

  // No orphan: nothing the agent started (bash and its children) outlives it.
  await expect
    .poll(() => processesUnder(dirs.root).map((p) => p.cmdline), {
      message: 'processes left behind by the killed agent',
      timeout: 5_000,
    })
    .toEqual([]);

  // Every acknowledged event is in the log, which reads back without warnings.
  const { records, warnings } = await readLog(dirs, sessionId);
  expect(warnings).toEqual([]);
  expectGaplessSeq(records);
  const one = turnEvents(records, 1);
  expect(one[0]).toEqual({ type: 'turn/start', turn: 1 });
  expect(one.some((e) => e.type === 'turn/end')).toBe(false);
  // The log may run ahead of the client (a chunk is logged before it is sent, and the kill lands
  // whenever it lands), never behind it.
  expect(loggedChunkText(one).startsWith(messageText(seen)), 'the log holds every chunk the client saw').toBe(
    true,
  );
  for (const u of seen) {
    if (u.update.sessionUpdate !== 'tool_call') continue;
    expect(one).toContainEqual(
      expect.objectContaining({ type: 'tool/call', toolCallId: u.update.toolCallId }),
    );
  }
  if (first.permissionRequests.length > 0)
    expect(one.some((e) => e.type === 'permission/outcome')).toBe(true);
  opts.logged(one, seen);

  // A torn tail, as a kill in the middle of a write leaves it, is reported and cut off, not fatal.
  const logFile = join(dirs.persist, `${sessionId}.jsonl`);
  appendFileSync(logFile, '{"seq":');
  expect((await readLog(dirs, sessionId)).warnings).toEqual([expect.stringContaining('torn tail')]);

  const second = startLive(dirs, emu.url, 'resumed');
  await second.initialize();
  await second.agent.request('session/load', { sessionId, cwd: dirs.cwd, mcpServers: [] });
  expect(updateKinds(second.updates)).toEqual(opts.replayed);
  const loaded = [...second.updates];
  expect(second.stderr).toContain(`${logFile}:`);
  expect(second.stderr).toContain('torn tail');
  const res = await second.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'Are you back?' }],
  });
  expect(res.stopReason).toBe('end_turn');
  expect(messageText(second.updates)).toContain(NEXT_ANSWER);
  expect(await second.close()).toBe(0);
  expect(second.stderr).not.toMatch(STACK_LINE);

  const after = await readLog(dirs, sessionId);
  expect(after.warnings).toEqual([]);
  expectGaplessSeq(after.records);
  // The killed process's events are kept as they were; the interrupted turn is closed after them.
  expect(after.records.slice(0, records.length)).toEqual(records);
  const boundary = after.records.findIndex((r) => r.event.type === 'boundary');
  expect(boundary).toBe(records.length);
  opts.resumed(loaded, turnEvents(after.records.slice(boundary), 1), one);
  expect(turnEvents(after.records, 1).at(-1)).toEqual({
    type: 'turn/end',
    turn: 1,
    kind: 'error',
    error: { message: 'the agent process stopped before this turn ended', code: 'interrupted' },
  });
  expect(turnEvents(after.records, 2).at(-1)).toEqual({ type: 'turn/end', turn: 2, kind: 'completed' });
}

test(`${KILLED}: SIGKILL while the model streams`, async () => {
  test.setTimeout(CASE_TIMEOUT_MS);
  await killMidTurn({
    responses: [{ fail: { kind: 'hang', afterChunks: 2, reply: { text: 'Streaming when the kill comes' } } }],
    prompt: 'Tell me a long story.',
    ready: (agent) => messageText(agent.updates).length > 0,
    logged: (events) => {
      expect(events.filter((e) => e.type === 'llm/request')).toHaveLength(1);
      expect(events.some((e) => e.type === 'assistant/chunk' && e.chunk.type === 'finish')).toBe(false);
    },
    replayed: ['user_message_chunk', 'agent_message_chunk'],
    resumed: (loaded, closing, logged) => {
      // The answer the user was reading (all that reached the log) is committed and shown again, and
      // the model is sent it next.
      const partial = { role: 'assistant', content: loggedChunkText(logged) };
      expect(partial.content.length).toBeGreaterThan(0);
      expect(closing[0]).toEqual({ type: 'message/committed', turn: 1, message: partial });
      expect(messageText(loaded)).toBe(partial.content);
      const sent = emu!.requests[1]!.body as { messages: { role: string; content: unknown }[] };
      expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
      expect(sent.messages[2]!.content).toBe(partial.content);
    },
  });
});

test(`${KILLED}: SIGKILL while the bash tool runs a long command`, async () => {
  test.setTimeout(CASE_TIMEOUT_MS);
  const c = failureCase(KILLED);
  await killMidTurn({
    responses: [...(c.emulator ?? [])],
    prompt: c.prompt ?? 'Run the long job.',
    // The command itself is running (not just announced): a process of the session cwd exists.
    ready: (agent, dirs) =>
      agent.updates.some((u) => u.update.sessionUpdate === 'tool_call') &&
      processesUnder(dirs.cwd).some((p) => /\bsleep\b/.test(p.cmdline)),
    logged: (events) => {
      expect(events.find((e) => e.type === 'tool/call')).toMatchObject({ name: 'bash' });
      expect(events.some((e) => e.type === 'tool/result')).toBe(false);
    },
    replayed: ['user_message_chunk', 'tool_call', 'tool_call_update'],
    resumed: (loaded, closing) => {
      // The bash call that died with the agent is closed as failed, so the conversation stays valid.
      expect(loaded[2]!.update).toMatchObject({ sessionUpdate: 'tool_call_update', status: 'failed' });
      expect(toolResultText(loaded)).toContain(
        'Not finished: the agent stopped before this tool call finished.',
      );
      expect(closing.map((e) => e.type)).toEqual(['tool/result', 'message/committed', 'turn/end']);
    },
  });
});
