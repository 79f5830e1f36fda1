// qwen-code through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/qwen.spec.ts/qwen/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { type AcpClient, expect, test } from '@acp-snapshot/playwright';

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
  // ...and today's date, read from qwen's first user message (the recording's date, on any day it replays).
  expect(turn.text).toMatch(/as of [A-Z][a-z]+, [A-Z][a-z]+ \d{1,2}, \d{4}\./);
  await commandsListed(acp);
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
  // qwen asked before it wrote, naming the file by its absolute path in this run's cwd.
  expect(asked).toHaveLength(1);
  expect(turn.text).toContain(`${roots.cwd}/notes.txt`);
  await commandsListed(acp);
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
  await commandsListed(acp);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('a cancelled turn', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = acp.promptInFlight('Count slowly from one to ten.');
  // The model's stream is under way (and stays open) when the cancel goes out.
  await acp.waitForUpdate('agent_message_chunk');
  await acp.cancel();
  expect((await turn).stopReason).toBe('cancelled');
  await commandsListed(acp);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
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
