/**
 * The test MCP server, a process of its own that the agent starts from session/new's `mcpServers` (stdio):
 * it offers the tools its spec file declares and answers their calls with the scripted answers, in order,
 * on the official MCP SDK. Every message either way is appended to the spec's traffic file; a scripted crash
 * (or any uncaught error) writes its stderr and exit there too, then exits 1, so the harness names it.
 *
 * Usage: node mcp-test-server.js SPEC.json
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerFile, McpTrafficLine } from './mcp-spec.js';

const specFile = process.argv[2];
if (!specFile) {
  process.stderr.write('usage: mcp-test-server SPEC.json (the acp fixture writes it: see mcpServers)\n');
  process.exit(2);
}
const spec = JSON.parse(readFileSync(specFile, 'utf8')) as McpServerFile;
const record = (line: McpTrafficLine) => appendFileSync(spec.traffic, `${JSON.stringify(line)}\n`);

/** Writes the crash to stderr and to the traffic file, then exits 1. */
function crash(message: string, scripted: boolean): never {
  process.stderr.write(`${message}\n`);
  record({ exit: 1, stderr: `${message}\n`, scripted });
  process.exit(1);
}
process.on('uncaughtException', (e) => crash(`mcp-test-server ${spec.name}: ${e.stack ?? String(e)}`, false));

const calls = new Map<string, number>();
const server = new Server({ name: spec.name, version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: spec.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: (t.inputSchema ?? { type: 'object' }) as { type: 'object' },
  })),
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const tool = spec.tools.find((t) => t.name === request.params.name);
  if (!tool)
    return {
      content: [
        {
          type: 'text',
          text: `unknown tool ${request.params.name} (this server offers: ${spec.tools.map((t) => t.name).join(', ')})`,
        },
      ],
      isError: true,
    };
  const n = calls.get(tool.name) ?? 0;
  calls.set(tool.name, n + 1);
  const answer = tool.answers[n];
  if (answer === undefined)
    return {
      content: [
        {
          type: 'text',
          text: `${tool.name}: call ${n + 1} has no scripted answer (the test scripted ${tool.answers.length})`,
        },
      ],
      isError: true,
    };
  if (typeof answer === 'object' && 'crash' in answer) crash(answer.crash, true);
  const { text, isError } = typeof answer === 'string' ? { text: answer, isError: false } : answer;
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
});

const transport = new StdioServerTransport();
const send = transport.send.bind(transport);
transport.send = async (message) => {
  record({ from: 'server', message: message as Record<string, unknown> });
  return send(message);
};
await server.connect(transport);
// Set by connect: every message from the agent passes here first.
const receive = transport.onmessage;
transport.onmessage = (message) => {
  record({ from: 'agent', message: message as Record<string, unknown> });
  receive?.(message);
};
