/**
 * Agent profiles: how the harness runs one agent (its command, environment, files in HOME, how it is
 * asked to exit, the wait for notifications that arrive after the last response) and the extra
 * normalization its volatile fields need. Profiles live in the user's playwright.config.ts.
 */

import { placeholderName } from '@acp-snapshot/core';
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
   * A run compared with a stdout snapshot ends it early once the stdout holds as many lines as the snapshot
   * and the replayed model has had every recorded call (decision 0043).
   */
  settleMs?: number;
  /** The client capabilities declared in initialize (default: fs read and write, no terminal). */
  clientCapabilities?: acp.ClientCapabilities;
  /**
   * The ACP version initialize asks for (default 1): 2, or 'highest' (asks for 2, continues on 1 when the
   * agent answers 1). A test or project's `protocolVersion` option wins over it.
   */
  protocolVersion?: 1 | 2 | 'highest';
  /** The agent's volatile fields, replaced in its stdout before comparison. */
  normalize?: NormalizeRules;
  /**
   * The volatile parts of the agent's model requests, for an HTTP model (`model: { kind: 'http' }`): put
   * before the model source's own `ids`.
   */
  requestIds?: Rule[];
  /**
   * Judges the agent's `initialize` answer: a message saying what no longer looks as the profile expects
   * (the test fails with it), or undefined. The built-in profiles (`agents`) check the agent's name, version
   * and capabilities with it.
   */
  checkInitialize?: (response: acp.InitializeResponse) => string | undefined;
}

/** How an agent is asked to exit: see {@link AgentProfile.exit}. */
export type ExitPolicy = 'stdin' | 'signal';

/**
 * A normalization rule, in the one spelling of every place rules are written (a profile's `normalize`, the HTTP
 * model's `ids`): the value at a JSON Pointer (RFC 6901, e.g. `/result/agentInfo/version`; in `ids` a segment
 * `*` is any key or index and `**` any depth), or each match of a regular expression (JavaScript syntax),
 * becomes `placeholder`.
 */
export type Rule = { path: string; placeholder: string } | { pattern: string; placeholder: string };

export interface NormalizeRules {
  /** JSON Pointers into a stdout message: a bare pointer's value becomes `{{volatile}}`, a rule's its placeholder. */
  paths?: Array<string | { path: string; placeholder: string }>;
  /**
   * Regular expressions matched on each serialized line of stdout and of the MCP traffic (`mcp.jsonl`); each
   * match becomes `placeholder`.
   */
  patterns?: Array<{ pattern: string; placeholder: string }>;
  /**
   * `session/update` kinds the agent sends at a time that varies (e.g. `available_commands_update`, which the
   * spec allows at any time, or `session_info_update` from a background title call): their lines move after
   * all others, sorted, so neither their position on the wire nor their order among themselves is compared.
   * Before stdin closes, a replay waits (up to 10 s) until as many of each kind have arrived as its stdout
   * snapshot holds.
   */
  anytimeUpdates?: string[];
  /**
   * The agent sends a tool call's permission request from another task than the call's updates (claude-agent-acp:
   * the SDK's permission callback beside the stream's reader), so the request lands before or after the updates
   * that fill in the call's input. When true, each `session/request_permission` is compared as if sent right
   * after the last line before it that is not a status-less `tool_call_update` of the same call: where it came
   * among those updates is not compared; everything else keeps its order.
   */
  racingPermissionRequests?: boolean;
}

/** A JSON Pointer for a dotted path: `metadata.user_id` -> `/metadata/user_id` (`[*]` and `[0]` become segments). */
function pointerOf(dotted: string): string {
  const keys = dotted
    .replace(/\[(\*|\d+)\]/g, '.$1')
    .split('.')
    .filter((k) => k !== '');
  return `/${keys.map((k) => k.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/**
 * Checks the spelling of the rules written at `field` (e.g. `model.ids`): throws naming the rule and the
 * spelling to use. `name`: each placeholder must be one `{{name}}` (the HTTP model numbers pattern matches).
 */
export function checkRules(rules: readonly unknown[], field: string, opts: { name?: boolean } = {}): void {
  for (const [i, raw] of rules.entries()) checkRule(raw, `${field}[${i}]`, opts);
}

/**
 * A rule written in the earlier spelling (a dotted path such as `metadata.user_id`, or `name: 'userId'`) in the
 * one spelling: `{ path: '/metadata/user_id', placeholder: '{{userId}}' }`. Undefined for a rule already in the
 * one spelling or not a rule at all. The 0.x series reads the earlier spelling through this (with a warning), and
 * `acp-snapshot migrate-config` writes what it returns.
 */
export function ruleInOneSpelling(raw: unknown): Rule | undefined {
  const rule = (raw ?? {}) as Record<string, unknown>;
  const pattern = rule.pattern instanceof RegExp ? rule.pattern.source : rule.pattern;
  if (typeof rule.path !== 'string' && typeof pattern !== 'string') return undefined;
  const dotted = typeof rule.path === 'string' && !rule.path.startsWith('/');
  const name = typeof rule.name === 'string' ? rule.name : undefined;
  if (name === undefined && !dotted) return undefined;
  const placeholder = typeof rule.placeholder === 'string' ? rule.placeholder : `{{${name ?? 'volatile'}}}`;
  if (typeof rule.path === 'string') return { path: dotted ? pointerOf(rule.path) : rule.path, placeholder };
  return { pattern: pattern as string, placeholder };
}

/** A rule as code, for messages: `{ path: "/a/b", placeholder: "{{x}}" }`. */
export function ruleText(rule: Rule): string {
  const what =
    'path' in rule ? `path: ${JSON.stringify(rule.path)}` : `pattern: ${JSON.stringify(rule.pattern)}`;
  return `{ ${what}, placeholder: ${JSON.stringify(rule.placeholder)} }`;
}

function checkRule(raw: unknown, at: string, opts: { name?: boolean }): void {
  const rule = (raw ?? {}) as Record<string, unknown>;
  const pattern = rule.pattern instanceof RegExp ? rule.pattern.source : rule.pattern;
  if (typeof rule.path !== 'string' && typeof pattern !== 'string')
    throw new Error(`${at}: a rule is { path: "/json/pointer", placeholder } or { pattern, placeholder }`);
  const converted = ruleInOneSpelling(raw);
  const what =
    typeof rule.path === 'string'
      ? `path: ${JSON.stringify(converted && 'path' in converted ? converted.path : rule.path)}`
      : `pattern: ${JSON.stringify(pattern)}`;
  const write = (p: string) => `write { ${what}, placeholder: ${JSON.stringify(p)} }`;
  if (converted)
    throw new Error(
      `${at}: ${typeof rule.name === 'string' ? '"name"' : `the dotted path ${JSON.stringify(rule.path)}`} is not the rule spelling; ${write(converted.placeholder)} (a JSON Pointer and a placeholder, as every normalization rule is written)`,
    );
  if (typeof rule.placeholder !== 'string') throw new Error(`${at}: no placeholder; ${write('{{name}}')}`);
  if (opts.name && placeholderName(rule.placeholder) === undefined)
    throw new Error(
      `${at}.placeholder: ${JSON.stringify(rule.placeholder)} is not one {{name}}; ${write('{{name}}')}, e.g. "{{userId}}"`,
    );
}

/** Applies a profile's rules to normalized stdout lines (JSON texts). Throws naming a bad pattern. */
export function applyRules(lines: readonly string[], rules: NormalizeRules | undefined): string[] {
  if (!rules) return [...lines];
  checkProfileRules(rules);
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
  const normalized = (line: string) => {
    let out = line;
    if (rules.paths?.length) {
      const value = JSON.parse(out) as unknown;
      for (const rule of rules.paths)
        typeof rule === 'string' ? replaceAt(value, rule) : replaceAt(value, rule.path, rule.placeholder);
      out = JSON.stringify(value);
    }
    for (const { re, placeholder } of patterns) out = out.replace(re, placeholder);
    return out;
  };
  // The other lines keep their order; the anytime updates follow them, sorted (once normalized): they race
  // one another (a title update and a second commands update), so neither their place on the wire nor
  // their order among themselves is compared.
  const rest: string[] = [];
  const late: string[] = [];
  for (const line of lines) (anytime.size > 0 && updateKind(line, anytime) ? late : rest).push(line);
  const ordered = rules.racingPermissionRequests ? hoistPermissionRequests(rest) : rest;
  return [...ordered.map(normalized), ...late.map(normalized).sort()];
}

/**
 * Moves each permission request back past the status-less `tool_call_update`s of its own tool call that directly
 * precede it, so the two orders a racing agent produces read the same.
 */
function hoistPermissionRequests(lines: readonly string[]): string[] {
  const out: string[] = [];
  const parsed: unknown[] = [];
  for (const line of lines) {
    const message = parseLine(line) as {
      method?: string;
      params?: { toolCall?: { toolCallId?: string } };
    };
    const callId =
      message?.method === 'session/request_permission' ? message.params?.toolCall?.toolCallId : undefined;
    let at = out.length;
    if (callId !== undefined) while (at > 0 && isStatuslessUpdateOf(parsed[at - 1], callId)) at--;
    out.splice(at, 0, line);
    parsed.splice(at, 0, message);
  }
  return out;
}

function isStatuslessUpdateOf(message: unknown, callId: string): boolean {
  const m = message as {
    method?: string;
    params?: { update?: { sessionUpdate?: string; toolCallId?: string; status?: string } };
  };
  const u = m?.params?.update;
  return (
    m?.method === 'session/update' &&
    u?.sessionUpdate === 'tool_call_update' &&
    u.toolCallId === callId &&
    u.status === undefined
  );
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The kind of a stdout line that is a `session/update` of one of the kinds, else undefined. */
function updateKind(line: string, kinds: ReadonlySet<string>): string | undefined {
  const m = parseLine(line) as
    | { method?: string; params?: { update?: { sessionUpdate?: string } } }
    | undefined;
  const kind = m?.params?.update?.sessionUpdate;
  return m?.method === 'session/update' && kind !== undefined && kinds.has(kind) ? kind : undefined;
}

/** How many updates of each anytime kind the lines hold (a recording's, or a live run's so far). */
export function anytimeCounts(lines: readonly string[], kinds: readonly string[]): Map<string, number> {
  const wanted = new Set(kinds);
  const counts = new Map<string, number>();
  for (const line of lines) {
    const kind = updateKind(line, wanted);
    if (kind) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

/** The command line of each profile (what the scenario runner and the guards take). */
export function profileCommands(
  profiles: Readonly<Record<string, AgentProfile>>,
): Record<string, readonly string[]> {
  return Object.fromEntries(Object.entries(profiles).map(([name, p]) => [name, p.command]));
}

/**
 * The `normalize` rules of the agents a scenario may run: the project's profile, and each named agent's
 * (`"agent": NAME` in input.json). A scenario's stdout gets its agent's rules, as a test's does.
 */
export interface ScenarioRules {
  project?: NormalizeRules;
  agents?: Readonly<Record<string, NormalizeRules | undefined>>;
}

/** The {@link ScenarioRules} of a project's profile and its named agents. */
export function profileRules(
  profile: AgentProfile,
  agents: Readonly<Record<string, AgentProfile>>,
): ScenarioRules {
  return {
    ...(profile.normalize ? { project: profile.normalize } : {}),
    agents: Object.fromEntries(Object.entries(agents).map(([name, p]) => [name, p.normalize])),
  };
}

/** Checks the spelling of a profile's rules (`agent profile normalize.paths`, `.patterns`). */
export function checkProfileRules(rules: NormalizeRules, field = 'agent profile normalize'): void {
  // A bare pointer is a rule whose placeholder is {{volatile}}.
  for (const [i, p] of (rules.paths ?? []).entries())
    checkRule(
      typeof p === 'string' ? { path: p, placeholder: '{{volatile}}' } : p,
      `${field}.paths[${i}]`,
      {},
    );
  checkRules(rules.patterns ?? [], `${field}.patterns`);
}

/** Replaces the value at a JSON Pointer with the placeholder, when the message has it. */
function replaceAt(root: unknown, pointer: string, placeholder = '{{volatile}}'): void {
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
  if (node && Object.hasOwn(node, last)) node[last] = placeholder;
}
