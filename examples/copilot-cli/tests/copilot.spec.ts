// GitHub Copilot CLI through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/copilot.spec.ts/copilot/<test>/exchanges.jsonl), its output is compared with the snapshots
// beside it.
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
  // ...and today's date, read from the time Copilot puts before the prompt (the recording's, on any day).
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
  // Copilot asked before it created the file (it asks by default; the profile refuses COPILOT_ALLOW_ALL).
  expect(asked).toEqual(['Create file']);
  expect(turn.text).toContain(`${roots.cwd}/notes.txt`);
  await acp.close();
  // The file its tool wrote is in the workspace snapshot.
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

test('quirk: no GitHub login in its provider mode, and the session title comes with the time it was set', async ({
  acp,
}) => {
  const init = await acp.initialize();
  // It offers a GitHub login, which a session in provider mode never needs.
  expect(init.authMethods?.map((m) => m.id)).toEqual(['copilot-login']);
  await acp.newSession();
  const turn = await acp.prompt('Say hello in Chinese.');
  expect(turn.stopReason).toBe('end_turn');
  expect(turn.text).toContain('你好 👋');
  await acp.close();
  // The title is the first prompt, set with a clock time: the profile replaces the time.
  const titles = acp.stdout
    .map(
      (l) =>
        JSON.parse(l.text) as {
          params?: { update?: { sessionUpdate?: string; title?: string; updatedAt?: string } };
        },
    )
    .filter((m) => m.params?.update?.sessionUpdate === 'session_info_update')
    .map((m) => [m.params?.update?.title, m.params?.update?.updatedAt]);
  expect(titles).toEqual([['Say hello in Chinese.', expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/)]]);
  await expect(acp).toMatchAcpSnapshot();
});
