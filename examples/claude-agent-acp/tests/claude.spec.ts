// claude-agent-acp through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/claude.spec.ts/claude/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { type AcpClient, expect, starterSuite, test } from '@acp-snapshot/playwright';

/**
 * After a session's first prompt claude sends its commands twice (once on ACP v2) (the built-ins, then again once its skills
 * are loaded) and the session's title, from a model call beside the turn, each at a time that varies: a test
 * waits for all three before it closes, so the snapshot never depends on whether they came in time.
 */
async function sessionUpdatesIn(acp: AcpClient, commands = 2): Promise<void> {
  const count = (kind: string) =>
    acp.stdout.filter((l) => l.text.includes(`"sessionUpdate":"${kind}"`)).length;
  await expect
    .poll(() => [count('available_commands_update'), count('session_info_update')], { timeout: 30_000 })
    .toEqual([commands, 1]);
}

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  // The stand-in quotes the cwd, and today's date from claude's system reminder.
  scripted: { date: /as of \d{4}-\d{2}-\d{2}\./ },
  // Its commands twice and the session's title (see sessionUpdatesIn).
  settle: { available_commands_update: 2, session_info_update: 1 },
  // And the title call beside the stream has answered before the cancel: its usage counts in the cancelled
  // turn's cost only when it finished first, a race the snapshot would otherwise record either way.
  cancelAfter: ['agent_message_chunk', 'session_info_update'],
});

test('quirk: a session starts in the mode that asks before edits, with no set_mode racing the first model call', async ({
  acp,
}) => {
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

test.describe('on ACP v2', () => {
  // claude-agent-acp 0.101 answers 2 when asked (CLAUDE_AGENT_ACP_PROTOCOL=auto, its default). The model's
  // calls are the v1 test's (the same prompt, the same requests): only the ACP wire differs.
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
    // On v2 claude lists its commands once per session (twice on v1).
    await sessionUpdatesIn(acp, 1);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});
