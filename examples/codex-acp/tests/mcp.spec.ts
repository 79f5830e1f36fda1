// codex-acp with an MCP server attached to its session, as teams test their agent: the harness's test MCP
// server offers one tool with a scripted answer. codex 2.6 gives its model MCP tools only inside `exec` (a
// custom tool whose input is JavaScript calling `tools.mcp__<server>__<tool>(...)`): the recorded model writes
// that script, codex runs it and calls the tool, and what the server saw is the test's mcp.jsonl snapshot.
import { expect, test } from '@acp-snapshot/playwright';

test.use({
  mcpServers: [
    {
      name: 'notes',
      tools: [
        {
          name: 'search_notes',
          description: "Search the user's notes for a word and return the matching lines.",
          inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
          answers: ['todo.md:1: buy oat milk 🥛 (燕麦奶)'],
        },
      ],
    },
  ],
});

// The MCP side is the same on ACP v1 and v2 (codex runs the server; the client sees a tool call): recorded on v1.
test.skip(
  ({ protocolVersion }) => protocolVersion === 2,
  'recorded on ACP v1: the MCP traffic is the same on v2',
);

test('an MCP tool called through a recorded model turn', async ({ acp, roots }) => {
  await acp.initialize();
  await acp.newSession();
  const asked: Array<{ toolCallId: string; meta: unknown }> = [];
  acp.answerPermissions((request) => {
    asked.push({ toolCallId: request.toolCall.toolCallId, meta: request._meta });
    const allow = request.options.find((o) => o.kind === 'allow_once');
    return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
  });
  const turn = await acp.prompt('Search my notes for milk.');
  expect(turn.stopReason).toBe('end_turn');
  // The editor sees the MCP call as a tool call of its own (not the `exec` script), asks for it, and shows the answer.
  const call = turn.updates.find((u) => u.sessionUpdate === 'tool_call');
  expect(call).toMatchObject({
    title: 'mcp.notes.search_notes',
    rawInput: { server: 'notes', tool: 'search_notes', arguments: { query: 'milk 🥛' } },
  });
  expect(asked).toEqual([{ toolCallId: call?.toolCallId, meta: { is_mcp_tool_approval: true } }]);
  expect(turn.updates.filter((u) => u.sessionUpdate === 'tool_call_update').at(-1)).toMatchObject({
    status: 'completed',
    rawOutput: { result: { content: [{ type: 'text', text: 'todo.md:1: buy oat milk 🥛 (燕麦奶)' }] } },
  });
  // The server was called once, with the model's arguments; the model read its answer back.
  const calls = (await acp.mcp.traffic()).filter(
    (l) => 'message' in l && (l.message as { method?: string }).method === 'tools/call',
  );
  expect(calls.map((l) => ('message' in l ? (l.message as { params: unknown }).params : undefined))).toEqual([
    expect.objectContaining({ name: 'search_notes', arguments: { query: 'milk 🥛' } }),
  ]);
  expect(turn.text).toContain(`buy oat milk 🥛 (燕麦奶), found from ${roots.cwd}.`);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
