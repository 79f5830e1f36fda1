/**
 * Agent profiles: how the harness runs one agent (its command, environment, files in HOME, how it is
 * asked to exit, the wait for notifications that arrive after the last response) and the extra
 * normalization its volatile fields need. Profiles live in the user's playwright.config.ts.
 */

import type { IdRule } from '@acp-snapshot/model-http';
import type * as acp from '@agentclientprotocol/sdk';

export interface AgentProfile {
  /** The agent's command line: executable, then arguments. */
  command: string[];
  /** Extra environment variables (the harness passes nothing else of its own environment but PATH and LANG). */
  env?: Record<string, string>;
  /** Files to place in the agent's HOME before it starts: path relative to HOME → content. */
  home?: Record<string, string>;
  /** How long the agent may take to exit after stdin closes before its process group is killed (ms; default 5000). */
  exitGraceMs?: number;
  /**
   * How the agent is asked to exit: `stdin` (default) closes stdin and expects it to exit on its own; `signal`
   * closes stdin and sends SIGTERM to its process group at once, for agents that never exit when stdin closes
   * (claude-agent-acp, codex-acp). Either way a process still running after `exitGraceMs` is killed and the
   * test fails naming it.
   */
  exit?: ExitPolicy;
  /**
   * After the last response, wait until the agent has written nothing for this long (ms) before a snapshot is
   * taken: for agents that send notifications (e.g. `available_commands_update`) after a response. Default 0.
   */
  settleMs?: number;
  /** The client capabilities declared in initialize (default: fs read and write, no terminal). */
  clientCapabilities?: acp.ClientCapabilities;
  /** The agent's volatile fields, replaced in its stdout before comparison. */
  normalize?: NormalizeRules;
  /**
   * The volatile parts of the agent's model requests, for an HTTP model (`model: { kind: 'http' }`): put
   * before the model source's own `ids`.
   */
  requestIds?: IdRule[];
  /**
   * Judges the agent's `initialize` answer: a message saying what no longer looks as the profile expects
   * (the test fails with it), or undefined. The built-in profiles (`agents`) check the agent's name, version
   * and capabilities with it.
   */
  checkInitialize?: (response: acp.InitializeResponse) => string | undefined;
}

/** How an agent is asked to exit: see {@link AgentProfile.exit}. */
export type ExitPolicy = 'stdin' | 'signal';

export interface NormalizeRules {
  /** JSON Pointers (RFC 6901) into a stdout message, e.g. `/result/agentInfo/version`: the value becomes `{{volatile}}`. */
  paths?: string[];
  /** Regular expressions (JavaScript syntax, matched on each serialized line); each match becomes `placeholder`. */
  patterns?: Array<{ pattern: string; placeholder: string }>;
  /**
   * `session/update` kinds the agent sends at a time that varies (e.g. `available_commands_update`, which the
   * spec allows at any time): their lines move after all others, kind by kind in the order listed here, each
   * kind's in the order they came, so their position on the wire is not compared.
   */
  anytimeUpdates?: string[];
}

/** Applies a profile's rules to normalized stdout lines (JSON texts). Throws naming a bad pattern. */
export function applyRules(lines: readonly string[], rules: NormalizeRules | undefined): string[] {
  if (!rules) return [...lines];
  const patterns = (rules.patterns ?? []).map((p, i) => {
    try {
      return { re: new RegExp(p.pattern, 'g'), placeholder: p.placeholder };
    } catch (e) {
      throw new Error(
        `agent profile normalize.patterns[${i}]: not a regular expression: ${JSON.stringify(p.pattern)} (${(e as Error).message})`,
      );
    }
  });
  const anytime = new Set(rules.anytimeUpdates ?? []);
  // One pass: the lines keep their order, the anytime updates follow them, kind by kind in the order the
  // rules list them (two kinds sent by separate tasks race each other), each kind in its arrival order.
  const rest: string[] = [];
  const late = new Map([...anytime].map((kind) => [kind, [] as string[]]));
  for (const line of lines) {
    const kind = anytime.size > 0 ? updateKind(line) : undefined;
    const bucket = kind === undefined ? undefined : late.get(kind);
    (bucket ?? rest).push(line);
  }
  const ordered = [...rest, ...[...late.values()].flat()];
  return ordered.map((line) => {
    let out = line;
    if (rules.paths?.length) {
      const value = JSON.parse(out) as unknown;
      for (const path of rules.paths) replaceAt(value, path);
      out = JSON.stringify(value);
    }
    for (const { re, placeholder } of patterns) out = out.replace(re, placeholder);
    return out;
  });
}

/** The kind of a stdout line that is a `session/update`, else undefined. */
function updateKind(line: string): string | undefined {
  try {
    const m = JSON.parse(line) as { method?: string; params?: { update?: { sessionUpdate?: string } } };
    return m.method === 'session/update' ? m.params?.update?.sessionUpdate : undefined;
  } catch {
    return undefined;
  }
}

/** The command line of each profile (what the scenario runner and the guards take). */
export function profileCommands(
  profiles: Readonly<Record<string, AgentProfile>>,
): Record<string, readonly string[]> {
  return Object.fromEntries(Object.entries(profiles).map(([name, p]) => [name, p.command]));
}

/** Replaces the value at a JSON Pointer with `{{volatile}}`, when the message has it. */
function replaceAt(root: unknown, pointer: string): void {
  if (pointer === '' || !pointer.startsWith('/'))
    throw new Error(
      `agent profile normalize.paths: ${JSON.stringify(pointer)} is not a JSON Pointer (e.g. "/result/agentInfo/version")`,
    );
  const keys = pointer
    .slice(1)
    .split('/')
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node = root as Record<string, unknown> | undefined;
  for (const key of keys.slice(0, -1)) {
    const next = node?.[key];
    if (!next || typeof next !== 'object') return;
    node = next as Record<string, unknown>;
  }
  const last = keys.at(-1)!;
  if (node && Object.hasOwn(node, last)) node[last] = '{{volatile}}';
}
