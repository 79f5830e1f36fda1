// Cline through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/cline.spec.ts/cline/<test>/exchanges.jsonl), its output is compared with the snapshots
// beside it.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { expect, test } from '@acp-snapshot/playwright';

test('no model: initialize and a new session', async ({ acp }) => {
  const init = await acp.initialize();
  expect(init.agentCapabilities?.loadSession).toBe(true);
  const session = await acp.newSession();
  // `<ms clock>_<5 random characters>_cli`: the harness numbers session ids wherever they appear.
  expect(session.sessionId).toMatch(/^\d{13}_[\w-]{5}_cli$/);
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
  // ...and today's date, read from Cline's system prompt (`Date: M/D/YYYY`; the recording's, on any day).
  expect(turn.text).toMatch(/as of \d{1,2}\/\d{1,2}\/\d{4}\./);
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
  // Cline asked before it wrote (its ACP sessions approve no tool by themselves); the title is the tool's name
  // and its JSON input cut at 60 characters, here inside the file's absolute path.
  expect(asked).toEqual([`editor: ${`{"path":"${roots.cwd}/notes.txt"`.slice(0, 57)}...`]);
  expect(turn.text).toContain(`${roots.cwd}/notes.txt`);
  await acp.close();
  // Cline wrote the file itself (not through the client's fs/write_text_file): it is in the workspace snapshot.
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

/** The processes whose working directory is in `dir` (Linux's /proc), by pid and command line. */
function runningIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`))
        found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

test('quirk: its permission request comes before the tool call it asks about, and no hub daemon outlives the agent', async ({
  acp,
  roots,
}) => {
  await acp.initialize();
  await acp.newSession();
  acp.answerPermissions((request) => {
    const allow = request.options.find((o) => o.kind === 'allow_once');
    return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
  });
  const turn = await acp.prompt('Create notes.txt with my shopping list: milk and eggs.');
  expect(turn.stopReason).toBe('end_turn');
  await acp.close();
  // The approval goes out as a `tool_call_update` of a call not announced yet, then the permission request;
  // the `tool_call` itself follows once the client allowed it.
  type Update = { sessionUpdate?: string; status?: string; toolCallId?: string };
  const kinds = acp.stdout
    .map((l) => JSON.parse(l.text) as { method?: string; params?: { update?: Update } })
    .filter((m) => m.method === 'session/request_permission' || m.params?.update?.toolCallId !== undefined)
    .map((m) =>
      m.method === 'session/request_permission'
        ? m.method
        : `${m.params?.update?.sessionUpdate} ${m.params?.update?.status}`,
    );
  expect(kinds).toEqual([
    'tool_call_update pending',
    'session/request_permission',
    'tool_call_update in_progress',
    'tool_call pending',
    'tool_call_update completed',
  ]);
  // With its default session backend (`auto`) Cline starts a hub daemon in its own session, in the test's cwd,
  // that outlives the agent; the profile's local backend starts none: nothing runs in the test's directories.
  expect(runningIn(roots.root)).toEqual([]);
  await expect(acp).toMatchAcpSnapshot();
});
