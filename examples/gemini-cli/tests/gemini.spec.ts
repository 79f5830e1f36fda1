// gemini-cli through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/gemini.spec.ts/gemini/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { fileURLToPath } from 'node:url';
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
  // ...and today's date, read from the request (the recording's date, on any day it replays).
  expect(turn.text).toMatch(/as of [A-Z][a-z]+, [A-Z][a-z]+ \d{1,2}, \d{4}\./);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test.describe(() => {
  // The list exists already: gemini reads a file before it overwrites it, and asks before it writes.
  test.use({ workspaceSeed: fileURLToPath(new URL('./seed', import.meta.url)) });

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
    // gemini asked before it overwrote, naming the file by its absolute path in this run's cwd.
    expect(asked).toHaveLength(1);
    expect(turn.text).toContain(`${roots.cwd}/notes.txt`);
    await acp.close();
    // The file the tool wrote is in the workspace snapshot.
    await expect(acp).toMatchAcpSnapshot();
  });
});

test('a new file: one write, one permission request', async ({ acp, roots }) => {
  await acp.initialize();
  await acp.newSession();
  const asked: string[] = [];
  acp.answerPermissions((request) => {
    asked.push(request.toolCall.title ?? '');
    const allow = request.options.find((o) => o.kind === 'allow_once');
    return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
  });
  const turn = await acp.prompt('Save a short text to a file in the cwd.');
  expect(turn.stopReason).toBe('end_turn');
  // One write of a file that did not exist: asked once, as in an editor, then written through the client.
  expect(asked).toEqual(['Writing to hello.txt']);
  const done = turn.updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
  expect(done).toBeTruthy();
  expect(turn.text).toContain(`Saved ✅ ${roots.cwd}/hello.txt`);
  await acp.close();
  // hello.txt is in the workspace snapshot.
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

test('quirk: function-call ids hold the clock (Date.now()), on the wire and in the requests', async ({
  acp,
  roots,
}) => {
  await acp.initialize();
  await acp.newSession();
  acp.answerPermissions((request) => {
    const allow = request.options.find((o) => o.kind === 'allow_once');
    return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
  });
  const turn = await acp.prompt('Create todo.txt with one task: call mom.');
  expect(turn.stopReason).toBe('end_turn');
  expect(turn.text).toContain(`${roots.cwd}/todo.txt`);
  // gemini names the call `<tool>_<Date.now()>_<n>`: a new id every run. The profile replaces the time on
  // stdout, and the model server in the request that returns the call's result, so the replay matches.
  // (Its permission request announced the call: the call's first update is its result.)
  const call = turn.updates.find((u) => u.sessionUpdate === 'tool_call_update');
  expect(call?.toolCallId).toMatch(/_\d{13}_\d+$/);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
