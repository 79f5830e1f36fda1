/**
 * What a test declares of an MCP server it attaches to a session: the tools the test MCP server offers and
 * the answers it gives, in order. Written to a file the server process reads (`mcp-test-server.ts`); the
 * server appends what it saw to the traffic file and, when it dies, its stderr and exit to the same file.
 */

/** One scripted answer of a tool: its text (an error result with `isError`), or a crash of the server. */
export type McpAnswer = string | { text: string; isError?: boolean } | { crash: string };

/** A tool the test MCP server offers. */
export interface McpTestTool {
  name: string;
  description: string;
  /** Its arguments' JSON Schema (default: an object with any properties). */
  inputSchema?: Record<string, unknown>;
  /** The answers to its calls, in order (a call past the last one is an error result naming the tool). */
  answers: McpAnswer[];
}

/** A test MCP server: `mcpServers: [{ name: 'notes', tools: [...] }]` in the fixture or `mcpTestServer()`. */
export interface McpTestServerSpec {
  /** The server's name in session/new (agents prefix its tools with it, e.g. `mcp__notes__search`). */
  name: string;
  tools: McpTestTool[];
  /**
   * How the agent reaches it: `stdio` (the default: the agent starts it) or `http` (streamable HTTP: the
   * harness starts it on a free local port and session/new names its URL; only for an agent that declares
   * `mcpCapabilities.http` in initialize).
   */
  transport?: 'stdio' | 'http';
}

/** The spec file the server process reads: the test's spec and where it writes what it saw. */
export interface McpServerFile extends McpTestServerSpec {
  /** JSONL: one line per message (`{"from":"agent"|"server","message":{...}}`), then `{"exit":...}` when it dies. */
  traffic: string;
}

/** One line of a traffic file. */
export type McpTrafficLine =
  | { from: 'agent' | 'server'; message: Record<string, unknown> }
  /** The server died: a scripted crash (`{crash}`) is on purpose, anything else is a fault. */
  | { exit: number; stderr: string; scripted: boolean };
