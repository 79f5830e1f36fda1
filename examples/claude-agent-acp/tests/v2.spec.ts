// What only ACP v2 does, on claude-agent-acp 0.101 (it answers 2 when asked: CLAUDE_AGENT_ACP_PROTOCOL=auto, its
// default): the prompt's response only acknowledges and the turn ends on the idle state update carrying the stop
// reason, a cancel too; history comes back through session/resume with replayFrom start (v2 has no session/load).
// These run in the `claude-v2` project; the other spec files run on both versions.
import { type AcpClient, agents, expect, test } from '@acp-snapshot/playwright';

test.skip(({ protocolVersion }) => protocolVersion !== 2, 'ACP v2 only: runs in the claude-v2 project');

/** On v2 claude lists its commands once per session (twice on v1) and titles it once (tests/claude.spec.ts). */
async function sessionUpdatesIn(acp: AcpClient, sessions = 1): Promise<void> {
  const count = (kind: string) =>
    acp.stdout.filter((l) => l.text.includes(`"sessionUpdate":"${kind}"`)).length;
  await expect
    .poll(() => [count('available_commands_update'), count('session_info_update')], { timeout: 30_000 })
    .toEqual([sessions, sessions]);
}

/** The wire's session/update notifications of one kind, parsed. */
function updates(acp: AcpClient, kind: string): Array<Record<string, unknown>> {
  return acp.stdout
    .filter((l) => l.text.includes(`"sessionUpdate":"${kind}"`))
    .map((l) => (JSON.parse(l.text) as { params: { update: Record<string, unknown> } }).params.update);
}

test('v2: a plain answer is acknowledged, then ends on the idle state update', async ({ acp, roots }) => {
  const init = await acp.initialize();
  expect(init.protocolVersion).toBe(2);
  const session = await acp.newSession();
  // v2's session has no modes: the mode is a config option, `default` (asks before edits) from the start
  // (tests/claude.spec.ts's quirk, on v1's modes).
  expect(session.configOptions?.find((o) => o.category === 'mode')).toMatchObject({
    currentValue: 'default',
  });
  const turn = await acp.prompt('What is the capital of France? One sentence.');
  // v2-only: the response carried a message id, and the stop reason came with the idle state update.
  expect(turn.stopReason).toBe('end_turn');
  expect(turn.updates.at(-1)).toMatchObject({
    sessionUpdate: 'state_update',
    state: 'idle',
    stopReason: 'end_turn',
  });
  expect(turn.text).toContain(`I'm answering from ${roots.cwd}`);
  await sessionUpdatesIn(acp);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('v2: a cancelled turn ends on the idle state update with cancelled', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = acp.promptInFlight('Count slowly from one to ten.');
  // The model's stream is under way (and stays open), and the title call beside it has answered (its cost counts
  // in the cancelled turn's only when it finished first), when the cancel goes out.
  await acp.waitForUpdate('agent_message_chunk');
  await acp.waitForUpdate('session_info_update');
  await acp.cancel();
  const cancelled = await turn;
  expect(cancelled.stopReason).toBe('cancelled');
  // v2-only: the turn's end is the idle state, and it names the cancel; it is the session's last state.
  expect(cancelled.updates.at(-1)).toMatchObject({
    sessionUpdate: 'state_update',
    state: 'idle',
    stopReason: 'cancelled',
  });
  expect(updates(acp, 'state_update').at(-1)).toMatchObject({ state: 'idle', stopReason: 'cancelled' });
  await sessionUpdatesIn(acp);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('v2: a session resumed with replayFrom start replays its history', async ({ acp }) => {
  await acp.initialize();
  const { sessionId } = await acp.newSession();
  expect((await acp.prompt('Remember the word tangerine.')).stopReason).toBe('end_turn');
  await sessionUpdatesIn(acp);
  const live = messages(acp.stdout.map((l) => l.text));
  // A new agent process, as an editor reopening the session: v2 has no session/load, resume replays instead.
  await acp.restart();
  await acp.initialize();
  const before = acp.stdout.length;
  await acp.resumeSession(sessionId, { replayFrom: { type: 'start' } });
  const replayed = messages(acp.stdout.slice(before).map((l) => l.text));
  // claude 0.101 replays each message as an upsert that creates it (empty), then its text as one chunk: the
  // prompt and the answer, under the message ids the live turn had.
  expect(replayed).toEqual([
    { kind: 'user', id: live[0]!.id, text: 'Remember the word tangerine.' },
    { kind: 'agent', id: live[1]!.id, text: 'Noted: tangerine 🍊 (橘子). Ask me later.' },
  ]);
  expect(live.map((m) => m.text)).toEqual(replayed.map((m) => m.text));
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test.describe('a failed turn', () => {
  // As tests/faults.spec.ts's 401, on v2: the key is refused at the turn's model call, no retries.
  test.use({
    agentProfile: agents.claudeAgentAcp({ env: { CLAUDE_CODE_MAX_RETRIES: '0' } }),
    modelFaults: {
      'key revoked': { kind: 'status', status: 401, lastUserMessage: /Name the three primary colours\.$/ },
    },
  });

  test('v2: a 401 ends the turn on the idle state update with stopReason error and the error', async ({
    acp,
    httpModel,
  }) => {
    await acp.initialize();
    await acp.newSession();
    // v2-only: the prompt was acknowledged, so the failure comes as the turn's end, not as a JSON-RPC error.
    const turn = await acp.prompt('Name the three primary colours.');
    expect(turn.stopReason).toBe('error');
    expect(turn.updates.at(-1)).toMatchObject({
      sessionUpdate: 'state_update',
      state: 'idle',
      stopReason: 'error',
      error: { code: -32000, message: 'Authentication required' },
    });
    expect(turn.text).toBe('Invalid API key · Fix external API key');
    await sessionUpdatesIn(acp);
    // The 401 (not retried) and the title call.
    expect(httpModel!.calls).toBe(2);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});

/** The wire's user and agent messages in order: each created by an upsert or a chunk, its text the chunks'. */
function messages(lines: readonly string[]): Array<{ kind: string; id: string; text: string }> {
  const found: Array<{ kind: string; id: string; text: string }> = [];
  for (const line of lines) {
    const m = /"sessionUpdate":"(user|agent)_message(_chunk)?"/.exec(line);
    if (!m) continue;
    const u = (JSON.parse(line) as { params: { update: { messageId: string; content?: unknown } } }).params
      .update;
    let message = found.find((f) => f.id === u.messageId);
    if (!message) {
      message = { kind: m[1]!, id: u.messageId, text: '' };
      found.push(message);
    }
    // A chunk appends its block's text; an upsert with content sets the message's text.
    const blocks = (Array.isArray(u.content) ? u.content : [u.content]) as Array<{
      type?: string;
      text?: string;
    }>;
    const text = blocks.map((b) => (b?.type === 'text' ? (b.text ?? '') : '')).join('');
    if (m[2]) message.text += text;
    else if (u.content !== undefined) message.text = text;
  }
  return found;
}
