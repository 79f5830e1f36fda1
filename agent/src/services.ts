import type { LlmPlugin, ToolSchema, VolatileRoots } from '@acp-snapshot/core';
import type { AgentConfig } from './config.js';
import type { Clock, IdGenerator } from './seams.js';
import type { SessionStore } from './session-store.js';
import type { ToolDefinition } from './tools/types.js';

/** Everything the composition root wires together and hands to sessions. */
export interface AgentServices {
  config: AgentConfig;
  plugin: LlmPlugin;
  tools: ToolDefinition[];
  toolSchemas: ToolSchema[];
  store: SessionStore;
  clock: Clock;
  ids: IdGenerator;
  /** The scrubbed environment tool child processes get. */
  toolEnv: Record<string, string | undefined>;
  /** The home directory (a volatile root of fingerprints). */
  home: string;
  /** The harness's other volatile roots (`ACP_SNAPSHOT_ROOTS`): test root, real home, install directory... */
  roots: VolatileRoots;
  agentInfo: { name: string; title: string; version: string };
  log: (line: string) => void;
}

/** The part of config that shapes model requests; written to the session header. */
export function requestShapingConfig(config: AgentConfig): Record<string, unknown> {
  return {
    params: config.llm.params,
    maxStepsPerTurn: config.maxStepsPerTurn,
    compaction: config.compaction,
    tools: { previewBudget: config.tools.previewBudget, bashTimeoutMs: config.tools.bashTimeoutMs },
    permissions: config.permissions,
  };
}
