/**
 * The test MCP server, a process of its own: over stdio the agent starts it from session/new's `mcpServers`;
 * over streamable HTTP (`--http`) the harness starts it and the agent connects to the URL it prints. It offers
 * the tools its spec file declares and answers their calls with the scripted answers, in order, on the
 * official MCP SDK. Every message either way is appended to the spec's traffic file; a scripted crash (or any
 * uncaught error) writes its stderr and exit there too, then exits 1, so the harness names it.
 *
 * Usage: node mcp-test-server.js SPEC.json [--http]
 *   --http: listens on 127.0.0.1 (a free port) and prints `{"url":"http://127.0.0.1:PORT/mcp"}` on stdout.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServerFile, McpTrafficLine } from './mcp-spec.js';

const specFile = process.argv[2];
if (!specFile) {
  process.stderr.write(
    'usage: mcp-test-server SPEC.json [--http] (the acp fixture writes it: see mcpServers)\n',
  );
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

// Shared by every connection (an HTTP agent may open more than one): the answers go in order across them.
const calls = new Map<string, number>();

/** One MCP server object, for one connection. */
function toolServer(): Server {
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
  return server;
}

/** Connects a server to the transport and records every message either way (options kept: HTTP routes by them). */
async function serve(transport: Transport): Promise<void> {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    record({ from: 'server', message: message as Record<string, unknown> });
    return send(message, options);
  };
  await toolServer().connect(transport);
  // Set by connect: every message from the agent passes here first.
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    record({ from: 'agent', message: message as Record<string, unknown> });
    receive?.(message, extra);
  };
}

if (process.argv.includes('--http')) {
  // One transport per MCP session, keyed by its id; ids are numbered so a run is the same as the next.
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let sessionCount = 0;
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? (JSON.parse(text) as unknown) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => `${spec.name}-session-${++sessionCount}`,
        onsessioninitialized: (sid) => void sessions.set(sid, t),
      });
      t.onclose = () => void (t.sessionId && sessions.delete(t.sessionId));
      await serve(t);
      transport = t;
    }
    if (!transport) {
      res.writeHead(typeof id === 'string' ? 404 : 400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message: `mcp-test-server ${spec.name}: no MCP session ${String(id ?? '(none)')}`,
          },
          id: null,
        }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    if (address === null || typeof address === 'string') crash('mcp-test-server: no TCP address', false);
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}/mcp` })}\n`);
  });
} else {
  await serve(new StdioServerTransport());
}
