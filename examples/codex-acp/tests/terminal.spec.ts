// codex-acp from a client that offers terminals as Zed does: `terminal: true`, and `_meta.terminal_output`
// (Zed's extension for showing the commands an agent runs itself). The model asks for a shell command; what the
// editor's user sees is the command and its output in the tool call, and the file it wrote on disk.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@acp-snapshot/playwright';

test.use({ terminal: true, clientMeta: { terminal_output: true } });
// Client terminals are ACP v1's (v2 has no terminal/* methods): the `codex` project runs this, not `codex-v2`.
test.skip(({ protocolVersion }) => protocolVersion === 2, 'ACP v2 has no client terminals');

test('a shell command, with client terminals offered, runs in codex and shows as a display terminal', async ({
  acp,
  roots,
}) => {
  await acp.initialize();
  await acp.newSession();
  const asked: string[] = [];
  acp.answerPermissions((request) => {
    asked.push(request.toolCall.title ?? '');
    const allow = request.options.find((o) => o.kind === 'allow_once');
    return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
  });
  const turn = await acp.prompt(
    'Stamp the build: write stamp.txt in the project with a shell command, then list it.',
  );
  expect(turn.stopReason).toBe('end_turn');
  const command = `printf 'built ✅ 构建完成\\n' > ${roots.cwd}/stamp.txt && ls ${roots.cwd}`;
  // The user was asked before the command ran, and the question quotes it.
  expect(asked).toEqual([command]);
  // The workspace on disk: the command ran in the session's cwd.
  expect(readFileSync(join(roots.cwd, 'stamp.txt'), 'utf8')).toBe('built ✅ 构建完成\n');
  expect(turn.text).toContain(`${roots.cwd}/stamp.txt says "built ✅ 构建完成"`);
  // The wire: the tool call embeds a terminal, the one Zed shows, named after the tool call (no terminal/create
  // made it), and the command's output and exit status come in its `_meta`, as the extension says: codex sends
  // both at the end of the command, in one update.
  const call = turn.updates.find((u) => u.sessionUpdate === 'tool_call');
  expect(call).toMatchObject({
    kind: 'execute',
    content: [{ type: 'terminal', terminalId: call?.toolCallId }],
    _meta: { terminal_info: { terminal_id: call?.toolCallId } },
  });
  const meta = turn.updates
    .filter((u) => u.sessionUpdate === 'tool_call_update')
    .map((u) => u._meta ?? {})
    .filter((m) => 'terminal_output' in m || 'terminal_exit' in m);
  expect(meta).toEqual([
    {
      terminal_output: { terminal_id: call?.toolCallId, data: 'stamp.txt\n' },
      terminal_exit: { terminal_id: call?.toolCallId, exit_code: 0, signal: null },
    },
  ]);
  // Pinned: codex-acp 2.6 never calls terminal/create, whatever the client offers; it runs the command
  // itself. A version that starts using the client's terminals fails here: record its test again and assert them.
  expect(acp.terminals?.created).toEqual([]);
  expect(acp.stdout.filter((l) => l.text.includes('"method":"terminal/'))).toEqual([]);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
