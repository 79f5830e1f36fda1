// codex-acp through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/codex.spec.ts/codex/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { expect, test } from '@acp-snapshot/playwright';

test('no model: initialize and a new session', async ({ acp }) => {
  const init = await acp.initialize();
  expect(init.agentCapabilities?.loadSession).toBe(true);
  const session = await acp.newSession();
  expect(session.sessionId).toBeTruthy();
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('a plain answer', async ({ acp, roots }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = await acp.prompt('What is the capital of France? One sentence.');
  expect(turn.stopReason).toBe('end_turn');
  // The model quoted the cwd: this run's, whatever the recording's was.
  expect(turn.text).toContain(`I'm answering from ${roots.cwd}`);
  // ...and today's date, read from its environment context (the recording's date, on any day it replays).
  expect(turn.text).toMatch(/as of \d{4}-\d{2}-\d{2}\./);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('a tool call with a permission request', async ({ acp, roots }) => {
  await acp.initialize();
  await acp.newSession();
  const asked: string[] = [];
  acp.answerPermissions((request) => {
    asked.push(request.toolCall.title ?? '');
    const allow = request.options.find((o) => o.kind === 'allow_once');
    return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
  });
  const turn = await acp.prompt('Create notes.txt with my shopping list: milk and eggs.');
  expect(turn.stopReason).toBe('end_turn');
  // codex asked before it wrote, naming the file by its absolute path in this run's cwd.
  expect(asked).toHaveLength(1);
  expect(turn.text).toContain(`${roots.cwd}/notes.txt`);
  await acp.close();
  // The file the tool wrote is in the workspace snapshot.
  await expect(acp).toMatchAcpSnapshot();
});

test('a multi-turn conversation', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  expect((await acp.prompt('Remember the word tangerine.')).stopReason).toBe('end_turn');
  const second = await acp.prompt('Which word did I ask you to remember?');
  expect(second.text).toContain('tangerine');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('a cancelled turn', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = acp.promptInFlight('Count slowly from one to ten.');
  // The model's stream is under way (and stays open) when the cancel goes out. codex's first message chunk
  // may be its own warning, sent before any model call: wait for the model's text.
  await expect.poll(() => acp.stdout.some((l) => l.text.includes('"text":"One'))).toBe(true);
  await acp.cancel();
  expect((await turn).stopReason).toBe('cancelled');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('quirk: a session starts in the mode that asks the client, not an auto-review model call', async ({
  acp,
}) => {
  await acp.initialize();
  const session = await acp.newSession();
  // codex-acp 2.x starts in `agent` (auto review); the profile's INITIAL_AGENT_MODE says `workspace-write`.
  expect(session.modes?.currentModeId).toBe('workspace-write');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test.describe('on ACP v2', () => {
  // codex-acp 2.6 registers v1 and v2; asked for 2 it answers 2. The model's calls are the v1 test's
  // (the same prompt, the same requests): only the ACP wire differs.
  test.use({ protocolVersion: 2 });

  test('v2: a plain answer is acknowledged, then ends on the idle state update', async ({ acp, roots }) => {
    const init = await acp.initialize();
    expect(init.protocolVersion).toBe(2);
    await acp.newSession();
    const turn = await acp.prompt('What is the capital of France? One sentence.');
    // v2-only: the response carried a message id, and the stop reason came with the idle state update.
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.updates.at(-1)).toMatchObject({ sessionUpdate: 'state_update', state: 'idle' });
    expect(turn.text).toContain(`I'm answering from ${roots.cwd}`);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});
