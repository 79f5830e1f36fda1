/**
 * The test MCP servers of one test: each spec written where its server process reads it, the ACP
 * `mcpServers` entry that reaches it (stdio: this Node running the package's bundled `mcp-test-server.js`,
 * started by the agent; http: the same script started here, its URL), and afterwards what each server saw, as one more snapshot surface (`mcp.jsonl`: every MCP message either
 * way, normalized like the wire) and as the crashes to report with their stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { normalizeJsonlText } from '../normalize/normalize.js';
import { rootMap, type TestRoots } from '../roots/roots.js';
import type { McpServerFile, McpTestServerSpec, McpTrafficLine } from './mcp-spec.js';

/** The server process's script: beside the package's bundle, or (from this repository's source) in its dist. */
export function mcpTestServerScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const bundled = join(here, 'mcp-test-server.js');
  if (existsSync(bundled)) return bundled;
  const built = join(here, '..', '..', 'dist', 'mcp-test-server.js');
  if (existsSync(built)) return built;
  throw new Error(`mcpServers: the test MCP server is not built (${built}): run npm run build`);
}

/**
 * Refuses an HTTP server for an agent that did not declare `mcpCapabilities.http` in initialize (it would
 * ignore or reject it in its own way), naming what it declared and what to do instead.
 */
export function refuseUndeclaredHttp(
  method: 'session/new' | 'session/load',
  servers: readonly acp.McpServer[],
  capabilities: acp.AgentCapabilities | undefined,
  agent: string,
): void {
  const http = servers.filter((s) => 'type' in s && s.type === 'http');
  if (http.length === 0 || capabilities?.mcpCapabilities?.http === true) return;
  throw new Error(
    `${method}: MCP server ${http.map((s) => JSON.stringify(s.name)).join(', ')} is attached over HTTP, but ${agent} did not declare mcpCapabilities.http in initialize ` +
      `(it declared mcpCapabilities: ${JSON.stringify(capabilities?.mcpCapabilities ?? {})}). ` +
      "Attach it over stdio (transport: 'stdio', the default), which every ACP agent supports.",
  );
}

/** A crash of a test MCP server, as the run reports it. */
export interface McpCrash {
  server: string;
  scripted: boolean;
  message: string;
}

export class McpTestServers {
  private readonly attached: McpServerFile[] = [];
  /** The HTTP servers started here (the agent starts the stdio ones), stopped by dispose(). */
  private readonly started: ChildProcess[] = [];
  private disposing = false;

  /** `dir`: where the specs and the traffic go (the test's root, outside the session cwd). */
  constructor(private readonly dir: string) {}

  /**
   * Writes the spec and returns the session/new entry: over stdio one that makes the agent start this
   * server; over http the URL of the server started now.
   */
  async attach(
    spec: McpTestServerSpec & { transport: 'http' },
  ): Promise<acp.McpServerHttp & { type: 'http' }>;
  async attach(spec: McpTestServerSpec & { transport?: 'stdio' }): Promise<acp.McpServerStdio>;
  async attach(spec: McpTestServerSpec): Promise<acp.McpServer>;
  async attach(spec: McpTestServerSpec): Promise<acp.McpServer> {
    if (!/^[A-Za-z0-9_-]+$/.test(spec.name))
      throw new Error(
        `mcpServers: server name ${JSON.stringify(spec.name)} must be letters, digits, _ or - (agents put it in tool names)`,
      );
    if (this.attached.some((s) => s.name === spec.name))
      throw new Error(
        `mcpServers: two servers are named ${JSON.stringify(spec.name)}: give each its own name`,
      );
    await mkdir(this.dir, { recursive: true });
    const file: McpServerFile = { ...spec, traffic: join(this.dir, `${spec.name}.traffic.jsonl`) };
    const specPath = join(this.dir, `${spec.name}.json`);
    await writeFile(specPath, JSON.stringify(file, null, 2));
    await writeFile(file.traffic, '');
    this.attached.push(file);
    if (spec.transport === 'http')
      return {
        type: 'http',
        name: spec.name,
        url: await this.startHttp(spec.name, specPath, file.traffic),
        headers: [],
      };
    return { name: spec.name, command: process.execPath, args: [mcpTestServerScript(), specPath], env: [] };
  }

  /** Starts the server in HTTP mode and resolves its URL (the first line it prints). */
  private startHttp(name: string, specPath: string, traffic: string): Promise<string> {
    // In the test's root, like everything the test starts: an orphan check by working directory finds it.
    const child = spawn(process.execPath, [mcpTestServerScript(), specPath, '--http'], {
      cwd: this.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.started.push(child);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    return new Promise((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString('utf8');
        const line = stdout.split('\n')[0];
        if (stdout.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
      });
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        reject(
          new Error(
            `mcpServers: the HTTP MCP server ${name} exited (${signal ?? `exit ${code}`}) before it listened; its stderr:\n${stderr}`,
          ),
        );
        // Died during the test, and not by its own crash handler (which records itself): a kill by a
        // signal, an out-of-memory. Recorded like a crash, with what it wrote to stderr.
        if (this.disposing) return;
        const recorded = readFileSync(traffic, 'utf8')
          .split('\n')
          .some((l) => l.startsWith('{"exit":'));
        if (!recorded)
          appendFileSync(
            traffic,
            `${JSON.stringify({ exit: code ?? 128 + (signal ? constants.signals[signal] : 0), stderr: `${stderr}${signal ? `(killed by ${signal})\n` : ''}`, scripted: false })}\n`,
          );
      });
    });
  }

  /** Stops the HTTP servers started here and waits until they are gone (no process outlives the test). */
  async dispose(): Promise<void> {
    this.disposing = true;
    await Promise.all(
      this.started.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
  }

  /** Whether any server was attached (the surface exists only then). */
  get any(): boolean {
    return this.attached.length > 0;
  }

  /** Every server's traffic, in the order attached, as `{server, ...line}` objects. */
  async traffic(): Promise<Array<{ server: string } & McpTrafficLine>> {
    const out: Array<{ server: string } & McpTrafficLine> = [];
    for (const s of this.attached) {
      const text = await readFile(s.traffic, 'utf8').catch(() => '');
      for (const line of text.split('\n'))
        if (line) out.push({ server: s.name, ...(JSON.parse(line) as McpTrafficLine) });
    }
    return out;
  }

  /** The `mcp.jsonl` snapshot text: every message each server saw, roots and home as placeholders. */
  async snapshotText(roots: TestRoots): Promise<string> {
    const lines = (await this.traffic()).map((l) => JSON.stringify(l));
    if (lines.length === 0) return '';
    return normalizeJsonlText(`${lines.join('\n')}\n`, { roots: rootMap(roots), aliases: roots.aliases });
  }

  /** The servers that died, with their stderr. */
  async crashes(): Promise<McpCrash[]> {
    return (await this.traffic()).flatMap((l) =>
      'exit' in l
        ? [
            {
              server: l.server,
              scripted: l.scripted,
              message: `MCP server ${l.server} crashed (exit ${l.exit})${l.scripted ? ', as its script said' : ''}; its stderr:\n${l.stderr.trimEnd()}`,
            },
          ]
        : [],
    );
  }
}
