// claude-agent-acp through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/claude.spec.ts/<project>/<test>/exchanges.jsonl: `claude` on ACP v1, `claude-v2` on v2), its output is
// compared with the snapshots beside it.
import { type AcpClient, expect, starterSuite, test } from '@acp-snapshot/playwright';

/**
 * After a session's first prompt claude sends its commands twice on ACP v1 (the built-ins, then again once its
 * skills are loaded; once on v2) and the session's title, from a model call beside the turn, each at a time that
 * varies: a test waits for all of them before it closes, so the snapshot never depends on whether they came in time.
 */
const settle = (version: 1 | 2) => ({
  available_commands_update: version === 2 ? 1 : 2,
  session_info_update: 1,
});
async function sessionUpdatesIn(acp: AcpClient): Promise<void> {
  const count = (kind: string) =>
    acp.stdout.filter((l) => l.text.includes(`"sessionUpdate":"${kind}"`)).length;
  const want = settle(acp.negotiation?.version ?? 1);
  await expect
    .poll(() => [count('available_commands_update'), count('session_info_update')], { timeout: 30_000 })
    .toEqual([want.available_commands_update, want.session_info_update]);
}

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  // The stand-in quotes the cwd, and today's date from claude's system reminder.
  scripted: { date: /as of \d{4}-\d{2}-\d{2}\./ },
  // Its commands and the session's title (see settle).
  settle,
  // And the title call beside the stream has answered before the cancel: its usage counts in the cancelled
  // turn's cost only when it finished first, a race the snapshot would otherwise record either way.
  cancelAfter: ['agent_message_chunk', 'session_info_update'],
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
