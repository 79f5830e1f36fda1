// claude-agent-acp through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/claude.spec.ts/claude/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { type AcpClient, expect, test } from '@acp-snapshot/playwright';

/**
 * After a session's first prompt claude sends its commands twice on ACP v1 (the built-ins, then again once its
 * skills are loaded; once on v2) and the session's title, from a model call beside the turn, each at a time that
 * varies: a test waits for all of them before it closes, so the snapshot never depends on whether they came in time.
 */
async function sessionUpdatesIn(
  acp: AcpClient,
  commands = acp.negotiation?.version === 2 ? 1 : 2,
): Promise<void> {
  const count = (kind: string) =>
    acp.stdout.filter((l) => l.text.includes(`"sessionUpdate":"${kind}"`)).length;
  await expect
    .poll(() => [count('available_commands_update'), count('session_info_update')], { timeout: 30_000 })
    .toEqual([commands, 1]);
}

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
  // ...and today's date, read from claude's system reminder (the recording's date, on any day it replays).
  expect(turn.text).toMatch(/as of \d{4}-\d{2}-\d{2}\./);
  await sessionUpdatesIn(acp);
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
  // claude asked before it wrote, naming the file by its absolute path in this run's cwd.
  expect(asked).toHaveLength(1);
  expect(turn.text).toContain(`${roots.cwd}/notes.txt`);
  await sessionUpdatesIn(acp);
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
  await sessionUpdatesIn(acp);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('a cancelled turn', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = acp.promptInFlight('Count slowly from one to ten.');
  // The model's stream is under way (and stays open) when the cancel goes out.
  await acp.waitForUpdate('agent_message_chunk');
  // And the title call beside it has answered: its usage counts in the cancelled turn's cost only when it
  // finished first, a race the snapshot would otherwise record either way.
  await acp.waitForUpdate('session_info_update');
  await acp.cancel();
  expect((await turn).stopReason).toBe('cancelled');
  await sessionUpdatesIn(acp);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('quirk: a session starts in the mode that asks before edits, with no set_mode racing the first model call', async ({
  acp,
  protocolVersion,
}) => {
  test.skip(
    protocolVersion === 2,
    "ACP v2's session/new has no modes (the mode is a config option): tests/v2.spec.ts",
  );
  await acp.initialize();
  const session = await acp.newSession();
  // claude 0.101 starts sessions in `auto` (edits approved without asking); a session/set_mode sent now would
  // race the turn's first model call. The profile's HOME settings make `default` the mode from the start.
  expect(session.modes?.currentModeId).toBe('default');
  const turn = await acp.prompt('Say hello in Chinese.');
  expect(turn.stopReason).toBe('end_turn');
  expect(turn.text).toContain('你好');
  await sessionUpdatesIn(acp);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
