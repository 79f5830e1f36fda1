// What only ACP v2 does, on codex-acp 2.6 (it registers v1 and v2; asked for 2 it answers 2): the prompt's
// response only acknowledges and the turn ends on the idle state update carrying the stop reason, a cancel too;
// history comes back through session/resume with replayFrom start (v2 has no session/load).
// These run in the `codex-v2` project; the other spec files run on both versions.
import { type AcpClient, expect, test } from '@acp-snapshot/playwright';

test.skip(({ protocolVersion }) => protocolVersion !== 2, 'ACP v2 only: runs in the codex-v2 project');

test('v2: a plain answer is acknowledged, then ends on the idle state update', async ({ acp, roots }) => {
  const init = await acp.initialize();
  expect(init.protocolVersion).toBe(2);
  const session = await acp.newSession();
  // v2's session has no modes: the mode is a config option, `workspace-write` from the profile (codex.spec.ts's
  // quirk, on v1's modes).
  expect(session.configOptions?.find((o) => o.category === 'mode')).toMatchObject({
    currentValue: 'workspace-write',
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
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('v2: a cancelled turn ends on the idle state update with cancelled', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = acp.promptInFlight('Count slowly from one to ten.');
  // The model's stream is under way (and stays open) when the cancel goes out (codex.spec.ts's cancel).
  await expect.poll(() => acp.stdout.some((l) => l.text.includes('"text":"One'))).toBe(true);
  await acp.cancel();
  const cancelled = await turn;
  expect(cancelled.stopReason).toBe('cancelled');
  // v2-only: the turn's end is the idle state, and it names the cancel.
  expect(cancelled.updates.at(-1)).toMatchObject({
    sessionUpdate: 'state_update',
    state: 'idle',
    stopReason: 'cancelled',
  });
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('v2: a session resumed with replayFrom start replays its history', async ({ acp }) => {
  test.fixme(
    true,
    'codex-acp 2.6 makes a second model call in some runs around the restart (a request whose tools lack the clock section), which the recording lacks: 3 of 6 replays failed on it under 2 workers',
  );
  await acp.initialize();
  const { sessionId } = await acp.newSession();
  expect((await acp.prompt('Remember the word tangerine.')).stopReason).toBe('end_turn');
  const live = messages(acp);
  // A new agent process, as an editor reopening the session: v2 has no session/load, resume replays instead.
  await acp.restart();
  await acp.initialize();
  const before = acp.stdout.length;
  await acp.resumeSession(sessionId, { replayFrom: { type: 'start' } });
  const replayed = messages(acp, before);
  // The prompt and the answer come back, in order, with the text the live turn had.
  expect(replayed.map((m) => m.kind)).toEqual(['user', 'agent']);
  expect(replayed.map((m) => m.text)).toEqual(live.map((m) => m.text));
  expect(replayed[0]!.text).toBe('Remember the word tangerine.');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

/** The wire's user and agent messages from stdout line `from` on: each created by an upsert or a chunk. */
function messages(acp: AcpClient, from = 0): Array<{ kind: string; id: string; text: string }> {
  const found: Array<{ kind: string; id: string; text: string }> = [];
  for (const line of acp.stdout.slice(from).map((l) => l.text)) {
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
