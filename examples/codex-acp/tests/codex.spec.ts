// codex-acp through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/codex.spec.ts/codex/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { expect, test } from '@acp-snapshot/playwright';

test('no model: initialize and a new session', async ({ acp, protocolVersion }) => {
  test.skip(
    protocolVersion === 2,
    'ACP v2 has no session/load: its initialize declares no loadSession (tests/v2.spec.ts)',
  );
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
  protocolVersion,
}) => {
  test.skip(
    protocolVersion === 2,
    "ACP v2's session/new has no modes (the mode is a config option): tests/v2.spec.ts",
  );
  await acp.initialize();
  const session = await acp.newSession();
  // codex-acp 2.x starts in `agent` (auto review); the profile's INITIAL_AGENT_MODE says `workspace-write`.
  expect(session.modes?.currentModeId).toBe('workspace-write');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
