// codex-acp through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/codex.spec.ts/codex/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { expect, starterSuite, test } from '@acp-snapshot/playwright';

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  // The stand-in quotes the cwd, and the date from codex's environment context.
  scripted: { date: /as of \d{4}-\d{2}-\d{2}\./ },
  // codex's first message chunk may be its own warning, sent before any model call: wait for the model's text.
  cancelAfter: (acp) => expect.poll(() => acp.stdout.some((l) => l.text.includes('"text":"One'))).toBe(true),
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
