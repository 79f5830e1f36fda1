import { CONTRACT_ENV, type SnapshotMode } from '@acp-snapshot/core';
/** The environment contract between the harness and any agent it runs (docs/contract.md). */

/** The variables the harness passes to an agent: docs/contract.md, "The environment". */
export interface AgentEnvInput {
  mode: SnapshotMode;
  scenario: string;
  /** Absolute path of the scenario's session.jsonl (replay and refresh). */
  fixture?: string;
  /** Absolute path of replay.override.json (overridden scenarios only). */
  override?: string;
  persistRoot: string;
  spillRoot: string;
  home: string;
  /** The test's temporary directory (`BUN_TMPDIR`): see TestRoots.tmp. */
  tmp?: string;
  /** The other volatile roots (test root, real home, install directory...), as `ACP_SNAPSHOT_ROOTS`. */
  roots?: Record<string, string>;
  /** The directory of the fixtures' sidecars (replay and refresh), so drift messages can show recorded prompts. */
  sidecars?: string;
  /** Record mode only: the model endpoint and key. */
  baseUrl?: string;
  apiKey?: string;
  /** Absolute path of the scenario's agent configuration file (scenarios with `agentConfig` only). */
  agentConfig?: string;
}

/**
 * The agent's PATH: the harness's own, less the entries a package runner (`npm test`, `npx`) put in
 * front of it (`.../node_modules/.bin`, npm's node-gyp-bin), so the agent sees the same PATH however
 * Playwright was started and tool output that shows PATH stays the same between recording and replay.
 */
export function agentPath(path: string | undefined): string {
  const entries = (path ?? '/usr/local/bin:/usr/bin:/bin')
    .split(':')
    .filter((p) => p !== '' && !/\/node_modules\/\.bin\/?$/.test(p) && !/\/node-gyp-bin\/?$/.test(p));
  return [...new Set(entries)].join(':') || '/usr/local/bin:/usr/bin:/bin';
}

/**
 * Node's compile cache for the agent (`NODE_COMPILE_CACHE`, Node 22.1 and later): V8's compiled code of the
 * agent's modules, kept across its processes and runs, so an agent that loads a large bundle at every start
 * (qwen-code, gemini-cli, claude-agent-acp) compiles it once. Node checks each entry against the source and
 * its own version and an older Node ignores the variable, so it changes how fast an agent starts, never what
 * it does. Beside the test roots, under the same fixed /tmp prefix, so the path is the same on every machine.
 */
export const AGENT_COMPILE_CACHE = '/tmp/acp-snapshot-node-compile-cache';

/**
 * The scrubbed agent environment: the contract variables plus PATH, LANG, TZ=UTC, Node's compile cache and
 * Bun's temporary directory, nothing inherited.
 */
export function agentEnv(
  input: AgentEnvInput,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {
    [CONTRACT_ENV.mode]: input.mode,
    [CONTRACT_ENV.scenario]: input.scenario,
    [CONTRACT_ENV.persistRoot]: input.persistRoot,
    [CONTRACT_ENV.spillRoot]: input.spillRoot,
    HOME: input.home,
    PATH: agentPath(parent.PATH),
    LANG: parent.LANG ?? 'C.UTF-8',
    TZ: 'UTC',
    NODE_COMPILE_CACHE: AGENT_COMPILE_CACHE,
  };
  // Not TMPDIR: agents quote os.tmpdir() to their model (OpenCode's system prompt names `/tmp/opencode`), so
  // moving it would change every recorded request. Bun's own variable moves only what the runtime unpacks.
  if (input.tmp) env.BUN_TMPDIR = input.tmp;
  if (input.roots && Object.keys(input.roots).length > 0)
    env[CONTRACT_ENV.roots] = JSON.stringify(input.roots);
  if (input.sidecars) env[CONTRACT_ENV.sidecars] = input.sidecars;
  if (input.fixture) env[CONTRACT_ENV.fixture] = input.fixture;
  if (input.override) env[CONTRACT_ENV.override] = input.override;
  if (input.agentConfig) env[CONTRACT_ENV.agentConfig] = input.agentConfig;
  if (input.mode === 'record') {
    if (input.baseUrl) env[CONTRACT_ENV.baseUrl] = input.baseUrl;
    if (input.apiKey) env.DEEPSEEK_API_KEY = input.apiKey;
  }
  return env;
}
