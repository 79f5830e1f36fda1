// OpenCode through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/opencode.spec.ts/opencode/<test>/exchanges.jsonl), its output is compared with the snapshots
// beside it.
import { expect, test } from '@acp-snapshot/playwright';

test('no model: initialize and a new session', async ({ acp }) => {
  const init = await acp.initialize();
  expect(init.agentCapabilities?.loadSession).toBe(true);
  const session = await acp.newSession();
  expect(session.sessionId).toMatch(/^ses_/);
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
  // ...and today's date, read from OpenCode's system prompt (the recording's date, on any day it replays).
  expect(turn.text).toMatch(/as of [A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{4}\./);
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
  // OpenCode asked before it wrote (the profile's `permission.edit: "ask"`), naming the file by its absolute path.
  expect(asked).toEqual([`${roots.cwd}/notes.txt`]);
  expect(turn.text).toContain(`${roots.cwd}/notes.txt`);
  await acp.close();
  // The file the tool wrote, through the client's fs/write_text_file, is in the workspace snapshot.
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
  // The model's stream is under way (and stays open) when the cancel goes out.
  await acp.waitForUpdate('agent_message_chunk');
  await acp.cancel();
  expect((await turn).stopReason).toBe('cancelled');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('quirk: only the harness model is offered, and message ids are random', async ({ acp }) => {
  await acp.initialize();
  const session = await acp.newSession();
  // Without `enabled_providers` the model list holds the OpenCode Zen models of the catalogue bundled with each
  // version; the profile keeps only its own provider, pointed at the harness's model server.
  const model = session.configOptions?.find((o) => o.id === 'model');
  expect(model && 'options' in model ? model.options : undefined).toEqual([
    { value: 'replay/qwen3-coder-plus', name: 'replay/qwen3-coder-plus' },
  ]);
  const turn = await acp.prompt('Say hello in Chinese.');
  expect(turn.stopReason).toBe('end_turn');
  await acp.close();
  // Every chunk carries the message's id, a clock then random characters: the profile replaces it.
  const ids = new Set(
    acp.stdout
      .map(
        (l) => JSON.parse(l.text) as { params?: { update?: { sessionUpdate?: string; messageId?: string } } },
      )
      .filter((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk')
      .map((m) => m.params?.update?.messageId),
  );
  expect([...ids]).toEqual([expect.stringMatching(/^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/)]);
  await expect(acp).toMatchAcpSnapshot();
});
