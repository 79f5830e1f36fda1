/**
 * Protocol coverage: what a run's tests made an agent do on the ACP wire, against what the agent declared.
 * Computed from the wires themselves (both directions, every agent process of every test), per agent project:
 * requests and their outcomes in both directions, `session/update` kinds, tool-call kinds and statuses,
 * permission outcomes, stop reasons, the content the client sent and the agent produced, modes and config
 * options set, and the capabilities declared in `initialize`. The gaps come first: what the agent declared
 * and no test exercised ("declared `loadSession`, never loaded"). Pure: the records are read and the report
 * written elsewhere (`coverage-records.ts`, `coverage-format.ts`).
 */

/** One line of a wire and the agent process (0-based) it belongs to. */
export interface WireLine {
  text: string;
  process: number;
}

/** What one test put on the wire. */
export interface TestWire {
  /** The Playwright project (one agent). */
  project: string;
  /** The test's title path below the project (`file › describe › title`). */
  test: string;
  /** Lines the client wrote to the agent's stdin. */
  sent: WireLine[];
  /** Lines the agent wrote to stdout. */
  received: WireLine[];
  /** What the test's MCP servers saw (`mcp.jsonl` before normalization), when the test attached any. */
  mcp?: McpWireLine[];
}

/** One MCP message a test MCP server saw, or its crash (the traffic file's lines, with the server's name). */
export type McpWireLine = { server: string } & (
  | { from: 'agent' | 'server'; message: Record<string, unknown> }
  | { exit: number; stderr: string; scripted: boolean }
);

/** One thing exercised, and the tests that exercised it. */
export interface CoverageItem {
  key: string;
  tests: string[];
}

export interface CoverageSection {
  title: string;
  items: CoverageItem[];
}

/** Something the agent declared and no test exercised. */
export interface CoverageGap {
  /** What was declared: `loadSession`, `promptCapabilities.image`, `mode:plan`, `configOption:model`. */
  declared: string;
  message: string;
}

export interface AgentCoverage {
  project: string;
  tests: number;
  /** `agentInfo` of the first initialize seen (name and version). */
  agent?: string;
  /** The capability paths the agent declared true (or as an object), e.g. `sessionCapabilities.list`. */
  declared: string[];
  gaps: CoverageGap[];
  sections: CoverageSection[];
}

export interface Coverage {
  projects: AgentCoverage[];
}

import { idleStopReason, isV2Wire } from '../compare/conversation-model.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** The JSON messages of some wire lines; lines that are not JSON objects are not messages. */
function messages(lines: readonly WireLine[]): { message: Json; process: number }[] {
  const out: { message: Json; process: number }[] = [];
  for (const l of lines) {
    try {
      const m: unknown = JSON.parse(l.text);
      if (isObject(m)) out.push({ message: m, process: l.process });
    } catch {
      // Not a message: the stdout surface reports such lines; coverage counts what the protocol carried.
    }
  }
  return out;
}

/** An answer as one word: `ok`, or `error -32002`. */
function outcome(response: Json | undefined): string {
  if (!response) return 'no answer';
  if (isObject(response.error)) return `error ${String(response.error.code)}`;
  return 'ok';
}

/** Capability paths declared: every leaf that is `true` and every object (an empty `{}` declares support). */
export function declaredCapabilities(caps: unknown, prefix = ''): string[] {
  if (!isObject(caps)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(caps)) {
    if (k.startsWith('_') || k === '_meta') continue;
    const path = prefix ? `${prefix}.${k}` : k;
    if (v === true) out.push(path);
    else if (isObject(v)) {
      const inner = declaredCapabilities(v, path);
      out.push(...(inner.length ? inner : Object.keys(v).length === 0 ? [path] : []));
    }
  }
  return out;
}

/** Prompt content-block types that exercise each prompt capability. */
const PROMPT_BLOCK_OF: Record<string, string> = {
  'promptCapabilities.image': 'image',
  'promptCapabilities.audio': 'audio',
  'promptCapabilities.embeddedContext': 'resource',
};

/**
 * The tool kinds a mode typically governs (what a permission policy allows, asks or refuses): a mode tried
 * with other kinds but never with one of these, where the run attempted it elsewhere, leaves its effect unseen.
 */
const GOVERNED_KINDS = ['edit', 'execute', 'delete', 'move'] as const;

/** Counts which tests exercised what, keyed by section and item. */
class Tally {
  private readonly sections = new Map<string, Map<string, Set<string>>>();

  add(section: string, key: string, test: string): void {
    const items = this.sections.get(section) ?? new Map<string, Set<string>>();
    this.sections.set(section, items);
    const tests = items.get(key) ?? new Set<string>();
    items.set(key, tests);
    tests.add(test);
  }

  has(section: string, key: string): boolean {
    return !!this.sections.get(section)?.get(key)?.size;
  }

  keys(section: string): string[] {
    return [...(this.sections.get(section)?.keys() ?? [])];
  }

  toSections(order: readonly string[]): CoverageSection[] {
    return order
      .filter((title) => this.sections.has(title))
      .map((title) => ({
        title,
        items: [...this.sections.get(title)!.entries()]
          .map(([key, tests]) => ({ key, tests: [...tests].sort() }))
          .sort((a, b) => a.key.localeCompare(b.key)),
      }));
  }
}

export const SECTIONS = {
  clientRequests: 'client → agent requests',
  clientNotifications: 'client → agent notifications',
  agentRequests: 'agent → client requests',
  updates: 'session/update kinds',
  toolKinds: 'tool calls by kind',
  toolStatuses: 'tool call statuses',
  permissions: 'permission outcomes',
  stopReasons: 'stop reasons',
  promptBlocks: 'prompt content sent',
  produced: 'content the agent produced',
  sessionSurface: 'session surface (parameters, which session addressed)',
  modes: 'modes (tool kinds attempted in each)',
  configOptions: 'config options set',
  terminals: 'client terminals',
  mcp: 'MCP servers and tools (the test MCP servers)',
} as const;

const ORDER = Object.values(SECTIONS);

/** Per project: what was declared (capabilities, modes, config options) across its tests. */
interface Declared {
  agent?: string;
  /** The MCP servers sessions were given, by name: their transport (`stdio`, `http`, `sse`). */
  mcpTransports: Map<string, string>;
  /** The tools the test MCP servers offered (answered to tools/list), as `server/tool`. */
  mcpTools: Set<string>;
  capabilities: Set<string>;
  modes: Set<string>;
  configOptions: Set<string>;
  authMethods: Set<string>;
}

/** Walks one test's wire, tallying what it exercised and collecting what the agent declared. */
function walk(wire: TestWire, tally: Tally, declared: Declared): void {
  const test = wire.test;
  const sent = messages(wire.sent);
  const received = messages(wire.received);
  // Coverage per protocol version: a v2 wire's methods and update kinds are counted as `v2 ...`.
  const v2 = isV2Wire(wire.received.map((l) => l.text));
  const on = (key: string) => (v2 ? `v2 ${key}` : key);
  // Ids restart in each process and each direction: key pending requests by both.
  const key = (process: number, id: unknown) => `${process}:${JSON.stringify(id)}`;
  const clientRequests = new Map<string, Json>();
  const agentRequests = new Map<string, Json>();
  for (const { message, process } of sent)
    if (typeof message.method === 'string' && 'id' in message)
      clientRequests.set(key(process, message.id), message);
  for (const { message, process } of received)
    if (typeof message.method === 'string' && 'id' in message)
      agentRequests.set(key(process, message.id), message);
  const responseTo = (requests: Map<string, Json>, answers: typeof sent) => {
    const out = new Map<Json, Json>();
    for (const { message, process } of answers) {
      if (typeof message.method === 'string' || !('id' in message)) continue;
      const request = requests.get(key(process, message.id));
      if (request) out.set(request, message);
    }
    return out;
  };
  const agentAnswers = responseTo(clientRequests, received);
  const clientAnswers = responseTo(agentRequests, sent);

  /** Each session's current mode, as the wire says it changed. */
  const modeOf = new Map<string, string>();
  /** The sessions session/new created, in order, with their cwd and agent process. */
  const created: { sessionId: string; cwd: string; process: number }[] = [];
  const surface = (what: string) => tally.add(SECTIONS.sessionSurface, what, test);
  for (const { message } of sent)
    if (
      (message.method === 'session/new' ||
        message.method === 'session/load' ||
        message.method === 'session/resume') &&
      isObject(message.params)
    )
      for (const s of Array.isArray(message.params.mcpServers) ? message.params.mcpServers : [])
        if (isObject(s) && typeof s.name === 'string')
          declared.mcpTransports.set(s.name, s.type ? String(s.type) : 'stdio');
  if (wire.mcp) walkMcp(wire.mcp, tally, declared, test);
  /** Tool calls counted, by session and id. */
  const toolCallsSeen = new Set<string>();
  const noteSetup = (result: unknown) => {
    if (!isObject(result)) return;
    const sessionId = typeof result.sessionId === 'string' ? result.sessionId : undefined;
    const modes = isObject(result.modes) ? result.modes : undefined;
    for (const m of Array.isArray(modes?.availableModes) ? modes.availableModes : [])
      if (isObject(m) && typeof m.id === 'string') declared.modes.add(m.id);
    if (sessionId && typeof modes?.currentModeId === 'string') modeOf.set(sessionId, modes.currentModeId);
    for (const o of Array.isArray(result.configOptions) ? result.configOptions : [])
      if (isObject(o) && typeof o.id === 'string') declared.configOptions.add(o.id);
  };

  for (const { message, process } of sent) {
    const method = message.method;
    if (typeof method !== 'string') continue;
    const params = isObject(message.params) ? message.params : {};
    if (!('id' in message)) {
      tally.add(SECTIONS.clientNotifications, on(method), test);
      continue;
    }
    const answer = agentAnswers.get(message);
    tally.add(SECTIONS.clientRequests, on(`${method} → ${outcome(answer)}`), test);
    const result = answer && isObject(answer.result) ? answer.result : undefined;
    if (method === 'initialize' && isObject(params.clientCapabilities) && params.clientCapabilities.terminal)
      tally.add(SECTIONS.terminals, 'offered (clientCapabilities.terminal)', test);
    if (method === 'initialize' && result) {
      for (const c of declaredCapabilities(result.agentCapabilities)) declared.capabilities.add(c);
      const info = isObject(result.agentInfo)
        ? result.agentInfo
        : isObject(result.info)
          ? result.info
          : undefined;
      if (info && !declared.agent)
        declared.agent = `${String(info.name)} ${String(info.version ?? '')}`.trim();
      for (const a of Array.isArray(result.authMethods) ? result.authMethods : [])
        if (isObject(a) && typeof a.id === 'string') declared.authMethods.add(a.id);
    }
    if (method === 'session/new' || method === 'session/load' || method === 'session/resume') {
      for (const s of Array.isArray(params.mcpServers) ? params.mcpServers : [])
        tally.add(
          SECTIONS.promptBlocks,
          `mcpServer:${isObject(s) && s.type ? String(s.type) : 'stdio'}`,
          test,
        );
    }
    if (method.startsWith('session/')) noteSurface(method, params, result, process);
    if (method === 'session/prompt') {
      for (const b of Array.isArray(params.prompt) ? params.prompt : [])
        if (isObject(b)) tally.add(SECTIONS.promptBlocks, String(b.type), test);
      if (result && typeof result.stopReason === 'string')
        tally.add(SECTIONS.stopReasons, result.stopReason, test);
    }
    if (method === 'session/set_mode' && typeof params.modeId === 'string' && !answer?.error) {
      tally.add(SECTIONS.modes, `${params.modeId}: set`, test);
    }
    if (method === 'session/set_config_option' && typeof params.configId === 'string')
      tally.add(
        SECTIONS.configOptions,
        `${params.configId} = ${String(params.value)} → ${outcome(answer)}`,
        test,
      );
  }

  /**
   * What a session-surface request exercised: which session it addressed (the newest, an older one, one of
   * an earlier process, an id no session/new of this test returned), a second directory, a list's filter
   * and cursor.
   */
  /** A session's mode as an answered request set it: set_mode, a mode config option, or a session's setup. */
  function noteModeChange(request: Json, result: Json): void {
    const params = isObject(request.params) ? request.params : {};
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    const method = request.method;
    if (method === 'session/new' || method === 'session/load' || method === 'session/resume')
      noteSetup({ sessionId, ...result });
    if (!sessionId) return;
    if (method === 'session/set_mode' && typeof params.modeId === 'string')
      modeOf.set(sessionId, params.modeId);
    if (method === 'session/set_config_option' && Array.isArray(result.configOptions)) {
      const option = result.configOptions.find((o) => isObject(o) && o.id === params.configId);
      if (isObject(option) && option.category === 'mode' && typeof option.currentValue === 'string')
        modeOf.set(sessionId, option.currentValue);
    }
  }

  /** A tool call's kind, in its session's mode, counted once per call (an ask and its update are one call). */
  function noteToolCall(sessionId: string, call: Json): void {
    const id = `${sessionId}/${String(call.toolCallId)}`;
    if (call.toolCallId !== undefined && toolCallsSeen.has(id)) return;
    toolCallsSeen.add(id);
    const toolKind = typeof call.kind === 'string' ? call.kind : 'other';
    tally.add(SECTIONS.toolKinds, toolKind, test);
    const mode = modeOf.get(sessionId);
    if (mode !== undefined) tally.add(SECTIONS.modes, `${mode}: ${toolKind}`, test);
  }

  /** What a client terminal call exercised: a command run, how it ended, its output cut, a kill, a release. */
  function noteTerminalCall(method: string, answer: Json | undefined): void {
    const result = isObject(answer?.result) ? answer.result : undefined;
    if (!result) return;
    const ended = (status: Json) =>
      typeof status.exitCode === 'number'
        ? status.exitCode === 0
          ? 'exit 0'
          : 'exit non-zero'
        : typeof status.signal === 'string'
          ? 'ended by a signal'
          : undefined;
    const add = (key: string | undefined) => key && tally.add(SECTIONS.terminals, key, test);
    if (method === 'terminal/create') add('command run (terminal/create)');
    if (method === 'terminal/wait_for_exit') add(`waited for: ${ended(result)}`);
    if (method === 'terminal/output') {
      add('output read');
      if (result.truncated === true) add('output read: truncated at outputByteLimit');
      if (isObject(result.exitStatus)) add(`output read after the exit: ${ended(result.exitStatus)}`);
    }
    if (method === 'terminal/kill') add('killed by the agent');
    if (method === 'terminal/release') add('released by the agent');
  }

  function noteSurface(method: string, params: Json, result: Json | undefined, process: number): void {
    if (method === 'session/new') {
      const cwd = typeof params.cwd === 'string' ? params.cwd : '';
      if (created.length && created.every((c) => c.cwd !== cwd))
        surface('session/new: in a second directory');
      if (result && typeof result.sessionId === 'string')
        created.push({ sessionId: result.sessionId, cwd, process });
      return;
    }
    if (method === 'session/list') {
      if (typeof params.cwd === 'string') {
        surface('session/list: cwd filter');
        if (created.some((c) => c.cwd !== params.cwd))
          surface("session/list: cwd filter, another directory's session left out");
      } else surface('session/list: no filter');
      if (typeof params.cursor === 'string') surface('session/list: cursor (a next page)');
      return;
    }
    if (typeof params.sessionId !== 'string') return;
    const at = created.findIndex((c) => c.sessionId === params.sessionId);
    const session = created[at];
    surface(
      `${method}: ${
        !session
          ? 'an id no session/new of the test returned'
          : session.process !== process
            ? 'a session of an earlier process'
            : at === created.length - 1
              ? 'the newest session'
              : 'an older session (another one created since)'
      }`,
    );
  }

  // The client's requests by the answer the agent gave them: a mode changes when its change is answered,
  // in the order of the agent's output, so each tool call is counted in the mode it ran in.
  const requestOf = new Map<Json, Json>([...agentAnswers].map(([request, answer]) => [answer, request]));
  for (const { message } of received) {
    const method = message.method;
    const request = requestOf.get(message);
    if (request && isObject(message.result)) noteModeChange(request, message.result);
    if (typeof method !== 'string') continue;
    const params = isObject(message.params) ? message.params : {};
    if ('id' in message) {
      const answer = clientAnswers.get(message);
      tally.add(SECTIONS.agentRequests, on(`${method} → ${outcome(answer)}`), test);
      if (method.startsWith('terminal/')) noteTerminalCall(method, answer);
      if (method === 'session/request_permission') {
        // Some agents (gemini-cli) announce a tool call by asking for it, before any tool_call update.
        const subject = isObject(params.subject) ? params.subject : {};
        const call = isObject(params.toolCall) ? params.toolCall : subject.toolCall;
        if (isObject(call) && typeof params.sessionId === 'string') noteToolCall(params.sessionId, call);
        const picked =
          isObject(answer?.result) && isObject(answer.result.outcome) ? answer.result.outcome : undefined;
        const options = Array.isArray(params.options) ? params.options.filter(isObject) : [];
        const chosen = options.find((o) => o.optionId === picked?.optionId);
        tally.add(
          SECTIONS.permissions,
          picked?.outcome === 'selected'
            ? `selected ${String(chosen?.kind ?? picked.optionId)}`
            : String(picked?.outcome ?? outcome(answer)),
          test,
        );
      }
      continue;
    }
    if (method !== 'session/update' || !isObject(params.update)) continue;
    const u = params.update;
    const kind = String(u.sessionUpdate);
    tally.add(SECTIONS.updates, on(kind), test);
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : '';
    if (kind === 'current_mode_update' && typeof u.currentModeId === 'string')
      modeOf.set(sessionId, u.currentModeId);
    // v2: the first tool_call_update creates the call; the idle state update carries the turn's stop reason.
    if (kind === 'tool_call' || (v2 && kind === 'tool_call_update')) noteToolCall(sessionId, u);
    const stop = v2 ? idleStopReason(u as { sessionUpdate: string }) : undefined;
    if (stop !== undefined) tally.add(SECTIONS.stopReasons, stop, test);
    if ((kind === 'tool_call' || kind === 'tool_call_update') && typeof u.status === 'string')
      tally.add(SECTIONS.toolStatuses, u.status, test);
    if (isObject(u.content)) tally.add(SECTIONS.produced, `${kind}: ${String(u.content.type)}`, test);
    for (const c of Array.isArray(u.content) ? u.content : [])
      if (isObject(c))
        tally.add(
          SECTIONS.produced,
          `${kind}: ${String(c.type)}${c.type === 'content' && isObject(c.content) ? ` ${String(c.content.type)}` : ''}`,
          test,
        );
  }
}

/**
 * What a test's MCP servers saw: each server the agent connected to (and over what), the tools it listed
 * and each tool called by server and name with how the call ended (ok, an error result, a JSON-RPC error, no
 * answer: the server died), and the crashes. Requests are paired with answers by id per server, the latest
 * request of an id first (an HTTP agent opening a second MCP session numbers from 0 again).
 */
function walkMcp(lines: readonly McpWireLine[], tally: Tally, declared: Declared, test: string): void {
  const pending = new Map<string, Json>();
  const calls: { server: string; tool: string; answer?: Json }[] = [];
  const add = (key: string) => tally.add(SECTIONS.mcp, key, test);
  const over = (server: string) => declared.mcpTransports.get(server) ?? 'stdio';
  for (const line of lines) {
    if ('exit' in line) {
      add(`${line.server}: crashed${line.scripted ? ' (scripted)' : ''}`);
      continue;
    }
    const m = line.message;
    const id = `${line.server}:${JSON.stringify(m.id)}`;
    if (line.from === 'agent' && typeof m.method === 'string') {
      if (m.method === 'initialize') add(`${line.server}: connected (${over(line.server)})`);
      if (!('id' in m)) continue;
      pending.set(id, m);
      if (m.method === 'tools/call' && isObject(m.params))
        calls.push({ server: line.server, tool: String(m.params.name) });
      continue;
    }
    const request = pending.get(id);
    if (line.from !== 'server' || !request || typeof m.method === 'string') continue;
    pending.delete(id);
    if (request.method === 'tools/list' && isObject(m.result) && Array.isArray(m.result.tools)) {
      add(`${line.server}: tools listed (tools/list)`);
      for (const t of m.result.tools)
        if (isObject(t) && typeof t.name === 'string') declared.mcpTools.add(`${line.server}/${t.name}`);
    }
    if (request.method === 'tools/call' && isObject(request.params)) {
      const tool = String(request.params.name);
      const call = [...calls].reverse().find((c) => c.server === line.server && c.tool === tool && !c.answer);
      if (call) call.answer = m;
    }
  }
  for (const c of calls) {
    const a = c.answer;
    const ended = !a
      ? 'no answer'
      : isObject(a.error)
        ? `error ${String(a.error.code)}`
        : isObject(a.result) && a.result.isError === true
          ? 'error result (isError)'
          : 'ok';
    add(`${c.server}: tool ${c.tool} called → ${ended}`);
  }
}

/** The gaps: each declared thing no test exercised, most telling first. */
function gapsOf(declared: Declared, tally: Tally): CoverageGap[] {
  const requested = (method: string) =>
    tally.keys(SECTIONS.clientRequests).some((k) => k.startsWith(`${method} → ok`));
  const gaps: CoverageGap[] = [];
  for (const cap of [...declared.capabilities].sort()) {
    if (cap === 'loadSession') {
      if (!requested('session/load'))
        gaps.push({
          declared: cap,
          message: 'declared `loadSession`, never loaded (no session/load answered ok)',
        });
    } else if (PROMPT_BLOCK_OF[cap]) {
      const block = PROMPT_BLOCK_OF[cap];
      if (!tally.has(SECTIONS.promptBlocks, block))
        gaps.push({
          declared: cap,
          message: `declared \`${cap}\`, never sent ${/^[aeiou]/.test(block) ? 'an' : 'a'} \`${block}\` block in a prompt`,
        });
    } else if (cap.startsWith('sessionCapabilities.')) {
      const method = `session/${cap.slice('sessionCapabilities.'.length)}`;
      if (!requested(method))
        gaps.push({
          declared: cap,
          message: `declared \`${cap}\`, never called \`${method}\` (answered ok)`,
        });
      else if (method === 'session/list' && !tally.has(SECTIONS.sessionSurface, 'session/list: cwd filter'))
        gaps.push({
          declared: `${cap}.cwd`,
          message: `declared \`${cap}\`, never filtered by cwd (every \`session/list\` listed all directories)`,
        });
    } else if (cap.startsWith('mcpCapabilities.')) {
      const type = cap.slice('mcpCapabilities.'.length);
      if (!tally.has(SECTIONS.promptBlocks, `mcpServer:${type}`))
        gaps.push({
          declared: cap,
          message: `declared \`${cap}\`, no session was given an ${type} MCP server`,
        });
    }
  }
  for (const id of [...declared.authMethods].sort())
    if (!requested('authenticate'))
      gaps.push({
        declared: `authMethod:${id}`,
        message: `declared auth method \`${id}\`, never authenticated`,
      });
  if (
    tally.has(SECTIONS.terminals, 'offered (clientCapabilities.terminal)') &&
    !tally.has(SECTIONS.terminals, 'command run (terminal/create)')
  )
    gaps.push({
      declared: 'clientCapabilities.terminal',
      message: 'the client offered `terminal`, and the agent never ran a command in a client terminal',
    });
  const mcpKeys = tally.keys(SECTIONS.mcp);
  for (const tool of [...declared.mcpTools].sort()) {
    const [server, name] = [tool.slice(0, tool.indexOf('/')), tool.slice(tool.indexOf('/') + 1)];
    if (!mcpKeys.some((k) => k.startsWith(`${server}: tool ${name} called`)))
      gaps.push({
        declared: `mcpTool:${tool}`,
        message: `the test MCP server \`${server}\` offered tool \`${name}\`, and the agent never called it`,
      });
  }
  const modeKeys = tally.keys(SECTIONS.modes);
  for (const mode of [...declared.modes].sort()) {
    const set = modeKeys.includes(`${mode}: set`);
    const toolKinds = modeKeys.filter((k) => k.startsWith(`${mode}: `) && k !== `${mode}: set`);
    if (!set && toolKinds.length === 0)
      gaps.push({
        declared: `mode:${mode}`,
        message: `declared mode \`${mode}\`, never set and never active`,
      });
    else if (toolKinds.length === 0)
      gaps.push({
        declared: `mode:${mode}`,
        message: `mode \`${mode}\`: set, but no tool call was attempted in it`,
      });
    else
      for (const kind of GOVERNED_KINDS)
        if (tally.has(SECTIONS.toolKinds, kind) && !toolKinds.includes(`${mode}: ${kind}`))
          gaps.push({
            declared: `mode:${mode}:${kind}`,
            message: `mode \`${mode}\`: never an \`${kind}\` tool call attempted in it (its effect on ${kind} calls is untested)`,
          });
  }
  const setOptions = tally.keys(SECTIONS.configOptions);
  for (const id of [...declared.configOptions].sort())
    if (!setOptions.some((k) => k.startsWith(`${id} = `)))
      gaps.push({ declared: `configOption:${id}`, message: `declared config option \`${id}\`, never set` });
  return gaps;
}

/** Coverage per project of the given test wires (a run's, or several shards' merged). */
export function computeCoverage(wires: readonly TestWire[]): Coverage {
  const byProject = new Map<string, TestWire[]>();
  for (const w of wires) byProject.set(w.project, [...(byProject.get(w.project) ?? []), w]);
  const projects: AgentCoverage[] = [];
  for (const [project, list] of [...byProject.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const tally = new Tally();
    const declared: Declared = {
      mcpTransports: new Map(),
      mcpTools: new Set(),
      capabilities: new Set(),
      modes: new Set(),
      configOptions: new Set(),
      authMethods: new Set(),
    };
    for (const w of list) walk(w, tally, declared);
    projects.push({
      project,
      tests: new Set(list.map((w) => w.test)).size,
      ...(declared.agent ? { agent: declared.agent } : {}),
      declared: [...declared.capabilities].sort(),
      gaps: gapsOf(declared, tally),
      sections: tally.toSections(ORDER),
    });
  }
  return { projects };
}
