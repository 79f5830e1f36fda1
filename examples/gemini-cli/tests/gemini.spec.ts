// gemini-cli through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/gemini.spec.ts/gemini/<test>/exchanges.jsonl), its output is compared with the snapshots beside it.
import { fileURLToPath } from 'node:url';
import { expect, starterSuite, test } from '@acp-snapshot/playwright';

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  // The stand-in quotes the cwd, and the date from the request.
  scripted: { date: /as of [A-Z][a-z]+, [A-Z][a-z]+ \d{1,2}, \d{4}\./ },
  // The list exists already: gemini reads a file before it overwrites it, and asks before it writes.
  toolSeed: fileURLToPath(new URL('./seed', import.meta.url)),
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
