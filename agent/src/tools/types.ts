import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';

/** File access for tools: the client's fs/* methods when it offers them, else the local disk. */
export interface FileAccess {
  readText(absPath: string): Promise<string>;
  writeText(absPath: string, content: string): Promise<void>;
}

/** What a command run in a client terminal produced. */
export interface TerminalRun {
  output: string;
  /** The client dropped the oldest output past the byte limit. */
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
  /** Killed by the agent: its timeout passed, or the turn was cancelled. */
  stopped?: 'timeout' | 'cancelled';
}

/** Commands run in the client's terminals (ACP terminal/*), when the client offers them. */
export interface TerminalAccess {
  run(request: {
    command: string;
    cwd: string;
    outputByteLimit: number;
    timeoutMs: number;
    signal: AbortSignal;
    /** Called with the terminal's id once it exists, to embed it in the tool call before it is released. */
    shown: (terminalId: string) => Promise<void>;
  }): Promise<TerminalRun>;
}

/** Everything a tool may touch; all of it injected so runs are deterministic under the harness. */
export interface ToolContext {
  /** The session cwd (absolute); relative tool paths resolve against it. */
  cwd: string;
  /** Where over-budget output is written in full. */
  spillRoot: string;
  /** The scrubbed environment for child processes. */
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  /** Deterministic id generator (counter under the harness). */
  newId: (prefix: string) => string;
  fs: FileAccess;
  /** Characters of output the model sees before the rest is spilled. */
  previewBudget: number;
  bashTimeoutMs: number;
  /** The client's terminals, when it offers them: bash runs its commands there. */
  terminal?: TerminalAccess;
  /** Sends the tool call's content so far (a terminal to embed while it runs). */
  report?: (content: ToolCallContent[]) => Promise<void>;
}

/** What a tool run produced: the text the model sees, the log preview, and the ACP content. */
export interface ToolOutcome {
  status: 'completed' | 'failed';
  /** The tool message content sent back to the model. */
  output: string;
  /** Set when output exceeded the preview budget and was written in full under the spill root. */
  spill?: { path: string; bytes: number };
  /** ACP tool_call_update content (text, diffs for edits). */
  content: ToolCallContent[];
  locations?: ToolCallLocation[];
}

/** A tool the model may call. Arguments are validated by the tool itself (clear error text on bad input). */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments, sent to the model. */
  parameters: Record<string, unknown>;
  kind: ToolKind;
  /** Which permission policy applies: edits, commands, or none (reads). */
  permission: 'edit' | 'command' | 'none';
  /** A short human title for tool_call, from (possibly invalid) arguments. */
  title(args: unknown): string;
  /** Locations touched, for tool_call (best effort from arguments). */
  locations(args: unknown, cwd: string): ToolCallLocation[];
  run(args: unknown, ctx: ToolContext): Promise<ToolOutcome>;
}
