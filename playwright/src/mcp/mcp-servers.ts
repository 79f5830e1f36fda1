/**
 * The test MCP servers of one test: each spec written where its server process reads it, the ACP
 * `mcpServers` entry that starts it (stdio: this Node running the package's bundled `mcp-test-server.js`),
 * and afterwards what each server saw, as one more snapshot surface (`mcp.jsonl`: every MCP message either
 * way, normalized like the wire) and as the crashes to report with their stderr.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
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

/** A crash of a test MCP server, as the run reports it. */
export interface McpCrash {
  server: string;
  scripted: boolean;
  message: string;
}

export class McpTestServers {
  private readonly attached: McpServerFile[] = [];

  /** `dir`: where the specs and the traffic go (the test's root, outside the session cwd). */
  constructor(private readonly dir: string) {}

  /** Writes the spec and returns the session/new entry that makes the agent start this server. */
  async attach(spec: McpTestServerSpec): Promise<acp.McpServerStdio> {
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
    return { name: spec.name, command: process.execPath, args: [mcpTestServerScript(), specPath], env: [] };
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
