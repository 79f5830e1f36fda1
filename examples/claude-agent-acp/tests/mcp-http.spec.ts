// claude-agent-acp with the harness's test MCP server attached over streamable HTTP (claude declares
// mcpCapabilities.http): the harness starts the server, session/new names its URL, the recorded model calls
// the tool through claude, and what the server saw is the test's mcp.jsonl snapshot.
import { expect, test } from '@acp-snapshot/playwright';

test.use({
  mcpServers: [
    {
      name: 'tickets',
      transport: 'http',
      tools: [
        {
          name: 'open_ticket',
          description: 'Open a maintenance ticket and return its number.',
          inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
          answers: ['ticket #42 opened: kitchen sink leaks 🚰 (水槽漏水)'],
        },
      ],
    },
  ],
});

test('an MCP tool over HTTP called through a recorded model turn', async ({ acp, roots }) => {
  const init = await acp.initialize();
  expect(init.agentCapabilities?.mcpCapabilities?.http).toBe(true);
  await acp.newSession();
  // claude asks before it calls an MCP tool: the one answer queued allows it.
  acp.answerPermissions('allow');
  const turn = await acp.prompt('Open a ticket: the kitchen sink leaks.');
  expect(turn.stopReason).toBe('end_turn');
  const question = acp.stdout.find((l) => l.text.includes('"method":"session/request_permission"'));
  expect(question?.text).toContain('"title":"mcp__tickets__open_ticket"');
  expect(turn.text).toContain(`ticket #42 🚰, filed from ${roots.cwd}.`);
  // claude's commands (twice) and the session's title come at times of their own: all of them, before closing.
  await expect
    .poll(
      () =>
        ['available_commands_update', 'session_info_update'].map(
          (k) => acp.stdout.filter((l) => l.text.includes(`"${k}"`)).length,
        ),
      { timeout: 30_000 },
    )
    .toEqual([2, 1]);
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
