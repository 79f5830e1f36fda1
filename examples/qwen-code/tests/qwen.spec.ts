// qwen-code through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/qwen.spec.ts/qwen/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { type AcpClient, expect, starterSuite, test } from '@acp-snapshot/playwright';

/**
 * qwen lists its commands (`available_commands_update`) once per session, during the turn or up to several
 * seconds after the prompt response on a loaded machine: each test waits for it before it closes, so the
 * snapshot never depends on whether it came within the profile's quiet time.
 */
async function commandsListed(acp: AcpClient): Promise<void> {
  await expect
    .poll(() => acp.stdout.some((l) => l.text.includes('"sessionUpdate":"available_commands_update"')), {
      timeout: 30_000,
    })
    .toBe(true);
}

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  // The stand-in quotes the cwd, and the date from qwen's first user message.
  scripted: { date: /as of [A-Z][a-z]+, [A-Z][a-z]+ \d{1,2}, \d{4}\./ },
  // Its commands (see commandsListed).
  settle: { available_commands_update: 1 },
});

test('quirk: a session starts in the mode that asks before edits, and prompt responses carry random ids', async ({
  acp,
}) => {
  await acp.initialize();
  const session = await acp.newSession();
  // qwen 0.24 starts sessions in `auto` (a model classifier approves edits); the profile's settings say `default`.
  expect(session.modes?.currentModeId).toBe('default');
  const turn = await acp.prompt('Say hello in Chinese.');
  expect(turn.stopReason).toBe('end_turn');
  await commandsListed(acp);
  await acp.close();
  // The response's `_meta["qwen.branchPoint"]` holds two random UUIDs: the profile replaces them.
  const response = acp.stdout
    .map((l) => JSON.parse(l.text) as { result?: { stopReason?: string; _meta?: Record<string, unknown> } })
    .find((m) => m.result?.stopReason === 'end_turn');
  expect(Object.keys(response?.result?._meta?.['qwen.branchPoint'] ?? {})).toEqual([
    'assistantRecordUuid',
    'checkpointUuid',
  ]);
  await expect(acp).toMatchAcpSnapshot();
});

test.describe('asking for ACP v2', () => {
  // qwen-code answers 1: under 'highest' the run goes on in v1 (the report's `acp protocol` annotation says
  // so); a test that demanded 2 would fail at initialize, naming both versions.
  test.use({ protocolVersion: 'highest' });

  test('no model: qwen answers protocol 1 and the run continues on v1', async ({ acp }) => {
    const init = await acp.initialize();
    expect(init.protocolVersion).toBe(1);
    expect(acp.negotiation).toMatchObject({
      asked: 'highest',
      version: 1,
      agent: expect.stringMatching(/^qwen-code /),
    });
    expect(acp.sent[0]!.text).toContain('"protocolVersion":2');
    await acp.newSession();
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});
