// Cline through its real ACP wire: each test's model calls come from its committed exchange log
// (tests/__acp__/cline.spec.ts/cline/<test>/exchanges.jsonl), its output is compared with the snapshots
// beside it.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { expect, starterSuite, test } from '@acp-snapshot/playwright';

// The package's starter tests: no model, a plain answer, a tool call, a multi-turn conversation, a cancelled turn.
starterSuite({
  loadSession: true,
  // `<ms clock>_<5 random characters>_cli`: the harness numbers session ids wherever they appear.
  sessionId: /^\d{13}_[\w-]{5}_cli$/,
  // The stand-in quotes the cwd, and today's date from Cline's system prompt (`Date: M/D/YYYY`).
  scripted: { date: /as of \d{1,2}\/\d{1,2}\/\d{4}\./ },
  // Cline asks before it writes (its ACP sessions approve no tool by themselves); the title is the tool's name
  // and its JSON input cut at 60 characters, here inside the file's absolute path. Cline writes the file itself,
  // not through the client's fs/write_text_file.
  permissions: (cwd) => [`editor: ${`{"path":"${cwd}/notes.txt"`.slice(0, 57)}...`],
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
