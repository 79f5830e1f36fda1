import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';

/** File access for tools: the client's fs/* methods when it offers them, else the local disk. */
export interface FileAccess {
  readText(absPath: string): Promise<string>;
  writeText(absPath: string, content: string): Promise<void>;
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
