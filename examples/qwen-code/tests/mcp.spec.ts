// qwen-code with an MCP server attached to its session, as teams test their agent: the harness's test MCP
// server offers one tool with a scripted answer, the recorded model calls it through qwen (as
// mcp__<server>__<tool>), and what the server saw is the test's mcp.jsonl snapshot beside its wire. Once over
// stdio (qwen starts the server) and once over streamable HTTP (qwen declares mcpCapabilities.http; the
// harness starts the server and session/new names its URL).
import { type AcpClient, expect, test } from '@acp-snapshot/playwright';

/** qwen lists its commands once per session, at a time of its own: every test waits for it before closing. */
async function commandsListed(acp: AcpClient): Promise<void> {
  await expect
    .poll(() => acp.stdout.some((l) => l.text.includes('"sessionUpdate":"available_commands_update"')), {
      timeout: 30_000,
    })
    .toBe(true);
}

/** Allows each permission request once, keeping the titles asked. */
function allowOnce(acp: AcpClient): string[] {
  const asked: string[] = [];
  acp.answerPermissions((request) => {
    asked.push(request.toolCall.title ?? '');
    const allow = request.options.find((o) => o.kind === 'allow_once');
    return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
  });
  return asked;
}

test.describe('stdio', () => {
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
    const asked = allowOnce(acp);
    const turn = await acp.prompt('Search my notes for milk.');
    expect(turn.stopReason).toBe('end_turn');
    expect(asked).toHaveLength(1);
    expect(turn.text).toContain(`buy oat milk 🥛 (燕麦奶), found from ${roots.cwd}.`);
    await commandsListed(acp);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});

test.describe('streamable HTTP', () => {
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
    const asked = allowOnce(acp);
    const turn = await acp.prompt('Open a ticket: the kitchen sink leaks.');
    expect(turn.stopReason).toBe('end_turn');
    expect(asked).toHaveLength(1);
    expect(turn.text).toContain(`ticket #42 🚰, filed from ${roots.cwd}.`);
    await commandsListed(acp);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});
