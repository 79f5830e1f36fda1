import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test } from '@playwright/test';
import { processesInside } from '../process/orphans.js';
import { createTestRoots, type TestRoots } from '../roots/roots.js';
import { McpTestServers, refuseUndeclaredHttp } from './mcp-servers.js';

/**
 * The test MCP server as an agent starts it: the session/new entry run as a process, talked to by the official
 * MCP client over stdio (what claude-agent-acp, codex-acp and others do with a stdio server).
 */
let base: string;
let roots: TestRoots;
let servers: McpTestServers;
test.beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'mcp-servers-'));
  roots = await createTestRoots('mcp', { base });
  servers = new McpTestServers(join(roots.root, 'mcp'));
});
test.afterEach(async () => {
  await servers.dispose();
  await rm(base, { recursive: true, force: true });
});

/** Starts the server the entry describes, as an agent would, and connects the MCP client to it. */
async function connect(entry: { command: string; args: string[] }) {
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'pipe' });
  const client = new Client({ name: 'agent-under-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

test('the server offers the declared tools and answers their calls in order; its traffic is the mcp surface, normalized', async () => {
  const entry = await servers.attach({
    name: 'notes',
    tools: [
      {
        name: 'search',
        description: 'Search the notes',
        inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
        answers: [`found ${roots.cwd}/todo.md 📝`, { text: 'index is down', isError: true }],
      },
    ],
  });
  expect(entry).toMatchObject({ name: 'notes', command: process.execPath, env: [] });
  const client = await connect(entry);
  const { tools } = await client.listTools();
  expect(tools.map((t) => [t.name, t.description, t.inputSchema.required])).toEqual([
    ['search', 'Search the notes', ['query']],
  ]);
  const first = await client.callTool({ name: 'search', arguments: { query: 'todo' } });
  expect(first).toEqual({ content: [{ type: 'text', text: `found ${roots.cwd}/todo.md 📝` }] });
  const second = await client.callTool({ name: 'search', arguments: { query: 'again' } });
  expect(second).toEqual({ content: [{ type: 'text', text: 'index is down' }], isError: true });
  const third = await client.callTool({ name: 'search', arguments: { query: 'more' } });
  expect(third.isError).toBe(true);
  expect(third.content).toEqual([
    { type: 'text', text: 'search: call 3 has no scripted answer (the test scripted 2)' },
  ]);
  await client.close();

  const text = await servers.snapshotText(roots);
  const lines = text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines[0]).toMatchObject({ server: 'notes', from: 'agent', message: { method: 'initialize' } });
  expect(lines.filter((l) => l.message?.method === 'tools/call').map((l) => l.message.params)).toEqual([
    { name: 'search', arguments: { query: 'todo' } },
    { name: 'search', arguments: { query: 'again' } },
    { name: 'search', arguments: { query: 'more' } },
  ]);
  // The cwd in an answer is a placeholder in the snapshot, as on the ACP wire.
  expect(text).toContain('found {{cwd}}/todo.md 📝');
  expect(text).not.toContain(roots.cwd);
  expect(await servers.crashes()).toEqual([]);
});

test('a scripted crash ends the server; the crash is reported with its stderr', async () => {
  const entry = await servers.attach({
    name: 'flaky',
    tools: [
      { name: 'boom', description: 'Crashes', answers: [{ crash: 'fatal: the index file is corrupt' }] },
    ],
  });
  const client = await connect(entry);
  await expect(client.callTool({ name: 'boom', arguments: {} })).rejects.toThrow();
  expect(await servers.crashes()).toEqual([
    {
      server: 'flaky',
      scripted: true,
      message:
        'MCP server flaky crashed (exit 1), as its script said; its stderr:\nfatal: the index file is corrupt',
    },
  ]);
  await client.close();
});

test('bad specs are refused naming the field: a name agents cannot use, two servers with one name', async () => {
  await expect(servers.attach({ name: 'my notes', tools: [] })).rejects.toThrow(
    'mcpServers: server name "my notes" must be letters, digits, _ or -',
  );
  await servers.attach({ name: 'a', tools: [] });
  await expect(servers.attach({ name: 'a', tools: [] })).rejects.toThrow('two servers are named "a"');
});

test('over streamable HTTP: the harness starts the server, the official HTTP client calls it, the traffic lands in the same surface, dispose stops it', async () => {
  const entry = await servers.attach({
    name: 'tickets',
    transport: 'http',
    tools: [{ name: 'open_ticket', description: 'Opens a ticket', answers: ['ticket #7 opened 🎫'] }],
  });
  expect(entry).toMatchObject({ type: 'http', name: 'tickets', headers: [] });
  expect(entry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  // Two connections, as an agent reconnecting or listing then calling would: each gets its own MCP session,
  // the scripted answers go on in order across them.
  const first = new Client({ name: 'agent-under-test', version: '1.0.0' });
  await first.connect(new StreamableHTTPClientTransport(new URL(entry.url)));
  expect((await first.listTools()).tools.map((t) => t.name)).toEqual(['open_ticket']);
  await first.close();
  const second = new Client({ name: 'agent-under-test', version: '1.0.0' });
  await second.connect(new StreamableHTTPClientTransport(new URL(entry.url)));
  expect(await second.callTool({ name: 'open_ticket', arguments: { title: 'x' } })).toEqual({
    content: [{ type: 'text', text: 'ticket #7 opened 🎫' }],
  });
  await second.close();

  const lines = (await servers.snapshotText(roots))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines.filter((l) => l.from === 'agent').map((l) => l.message.method)).toEqual([
    'initialize',
    'notifications/initialized',
    'tools/list',
    'initialize',
    'notifications/initialized',
    'tools/call',
  ]);
  expect(lines.every((l) => l.server === 'tickets')).toBe(true);
  expect(lines.find((l) => l.message.result?.content)?.message.result.content[0].text).toBe(
    'ticket #7 opened 🎫',
  );

  await servers.dispose();
  // Gone: the port refuses connections.
  await expect(fetch(entry.url, { method: 'POST' })).rejects.toThrow();
});

test('an HTTP server is refused for an agent that did not declare mcpCapabilities.http, naming what it declared and what to do', () => {
  const http = { type: 'http' as const, name: 'tickets', url: 'http://127.0.0.1:1/mcp', headers: [] };
  const stdio = { name: 'notes', command: 'node', args: [], env: [] };
  expect(() =>
    refuseUndeclaredHttp('session/new', [stdio, http], { mcpCapabilities: { sse: true } }, 'goose'),
  ).toThrow(
    `session/new: MCP server "tickets" is attached over HTTP, but goose did not declare mcpCapabilities.http in initialize (it declared mcpCapabilities: {"sse":true}). Attach it over stdio (transport: 'stdio', the default), which every ACP agent supports.`,
  );
  expect(() => refuseUndeclaredHttp('session/new', [http], {}, 'goose')).toThrow(
    'it declared mcpCapabilities: {}',
  );
  expect(() =>
    refuseUndeclaredHttp('session/new', [http], { mcpCapabilities: { http: true } }, 'goose'),
  ).not.toThrow();
  expect(() => refuseUndeclaredHttp('session/new', [stdio], {}, 'goose')).not.toThrow();
  expect(() => refuseUndeclaredHttp('session/load', [http], {}, 'goose')).toThrow(
    /^session\/load: MCP server "tickets"/,
  );
});

test('an HTTP server killed during the test is reported as a crash with its stderr; after dispose no server process is left', async () => {
  const name = 'killed';
  const entry = await servers.attach({ name, transport: 'http', tools: [] });
  // It runs in the test's root (where the harness's orphan checks look).
  const mcpDir = join(roots.root, 'mcp');
  const [server, ...more] = await processesInside(mcpDir);
  expect(more).toEqual([]);
  expect(server!.command).toContain(`${name}.json --http`);
  process.kill(server!.pid, 'SIGKILL');
  await expect.poll(async () => (await servers.crashes()).length).toBe(1);
  expect(await servers.crashes()).toEqual([
    {
      server: name,
      scripted: false,
      message: `MCP server ${name} crashed (exit 137); its stderr:\n(killed by SIGKILL)`,
    },
  ]);
  await expect(fetch(entry.url, { method: 'POST' })).rejects.toThrow();

  await servers.attach({ name: 'kept', transport: 'http', tools: [] });
  await expect
    .poll(async () => (await processesInside(mcpDir)).map((p) => p.command))
    .toEqual([expect.stringContaining('kept.json --http')]);
  await servers.dispose();
  expect(await processesInside(mcpDir)).toEqual([]);
  // Stopped by the harness, not crashed.
  expect((await servers.crashes()).map((c) => c.server)).toEqual([name]);
});
