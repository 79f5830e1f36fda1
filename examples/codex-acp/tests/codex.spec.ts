// codex-acp through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/codex.spec.ts/<project>/<test>/exchanges.jsonl: `codex` on ACP v1, `codex-v2` on v2), its output is
// compared with the snapshots beside it.
import { expect, starterSuite, test } from '@acp-snapshot/playwright';

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  // The stand-in quotes the cwd, and the date from codex's environment context.
  scripted: { date: /as of \d{4}-\d{2}-\d{2}\./ },
  // codex's first message chunk may be its own warning, sent before any model call, and it forwards each streamed
  // piece from a thread of its own (a cancel after the first can overtake the second): wait for the model's
  // second piece, the last the stand-in sends before its stream stays open.
  cancelAfter: (acp) => expect.poll(() => acp.stdout.some((l) => l.text.includes('"text":" two'))).toBe(true),
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
