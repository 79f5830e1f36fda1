// claude-agent-acp with an MCP server attached to its session, as teams test their agent: the test MCP server
// of the harness offers one tool with a scripted answer, the recorded model calls it through claude, and what the
// server saw is the test's mcp.jsonl snapshot beside its wire.
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

test('an MCP tool called through a recorded model turn', async ({ acp, roots }) => {
  await acp.initialize();
  await acp.newSession();
  // claude asks before it calls an MCP tool: the one answer queued allows it.
  acp.answerPermissions('allow');
  const turn = await acp.prompt('Search my notes for milk.');
  expect(turn.stopReason).toBe('end_turn');
  const question = acp.stdout.find((l) => l.text.includes('"method":"session/request_permission"'));
  expect(question?.text).toContain('"title":"mcp__notes__search_notes"');
  expect(turn.text).toContain(`buy oat milk 🥛 (燕麦奶), found from ${roots.cwd}.`);
  // claude's commands (twice on ACP v1, once on v2) and the session's title come at times of their own: all of
  // them, before closing.
  await expect
    .poll(
      () =>
        ['available_commands_update', 'session_info_update'].map(
          (k) => acp.stdout.filter((l) => l.text.includes(`"${k}"`)).length,
        ),
      { timeout: 30_000 },
    )
    .toEqual([acp.negotiation?.version === 2 ? 1 : 2, 1]);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
