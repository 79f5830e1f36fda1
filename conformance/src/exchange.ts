/** The ordinary exchanges checks build on: initialize, session/new, a prompt turn, shutdown. */
import { type CheckContext, clip, fail } from './check.js';
import { type AgentConnection, isAgentRequest, isNotification, isResponse, NO_CAPABILITIES } from './wire.js';

/** The protocol version this suite speaks. */
export const PROTOCOL_VERSION = 1;

export { NO_CAPABILITIES };

/** The initialize params of this suite's client on `conn` (its advertised client capabilities). */
export function initializeParams(
  conn: AgentConnection,
  protocolVersion = PROTOCOL_VERSION,
): Record<string, unknown> {
  return {
    protocolVersion,
    clientCapabilities: conn.clientCapabilities,
    clientInfo: { name: 'acp-snapshot-conformance', version: '1.0.0' },
  };
}

/** The result of a successful response, or a failure naming the request and the error. */
export function resultOf(resp: Record<string, unknown>, what: string): Record<string, unknown> {
  if ('error' in resp) fail(`${what} failed: ${clip(JSON.stringify(resp.error), 300)}`);
  const r = resp.result;
  if (typeof r !== 'object' || r === null) fail(`${what} returned ${JSON.stringify(r)} instead of an object`);
  return r as Record<string, unknown>;
}

/** initialize with protocol version 1; returns the result. */
export async function initialize(conn: AgentConnection, ctx: CheckContext): Promise<Record<string, unknown>> {
  return resultOf(
    await conn.request('initialize', initializeParams(conn), ctx.timeouts.request),
    'initialize',
  );
}

/** session/new in the check's cwd with no MCP servers; returns the session id. */
export async function newSession(
  conn: AgentConnection,
  ctx: CheckContext,
  id?: string | number,
): Promise<string> {
  const result = resultOf(
    await conn.request('session/new', { cwd: ctx.cwd, mcpServers: [] }, ctx.timeouts.request, id),
    'session/new',
  );
  if (typeof result.sessionId !== 'string' || result.sessionId === '') {
    fail(`session/new returned sessionId ${JSON.stringify(result.sessionId)}, not a non-empty string`);
  }
  return result.sessionId;
}

/** A spawned, initialized agent with one session. */
export async function startSession(
  ctx: CheckContext,
  label?: string,
): Promise<{ conn: AgentConnection; sessionId: string; init: Record<string, unknown> }> {
  const conn = ctx.start(label);
  const init = await initialize(conn, ctx);
  const sessionId = await newSession(conn, ctx);
  return { conn, sessionId, init };
}

/** The prompt params for a plain text prompt. */
export function textPrompt(sessionId: string, text: string): Record<string, unknown> {
  return { sessionId, prompt: [{ type: 'text', text }] };
}

/** What a completed prompt turn looked like on the wire. */
export interface Turn {
  /** Index in `conn.inbound` where the turn's messages start. */
  from: number;
  /** Index of the prompt response in `conn.inbound`. */
  responseIndex: number;
  response: Record<string, unknown>;
  /** The session/update notifications (params) seen between the prompt and its response. */
  updates: Record<string, unknown>[];
}

/** Index of a message object in `conn.inbound`. */
export function indexOf(conn: AgentConnection, msg: Record<string, unknown>): number {
  return conn.inbound.findIndex((i) => i.msg === msg);
}

/** Sends a prompt and waits for its response (permission requests are answered by the connection's policy). */
export async function promptTurn(
  conn: AgentConnection,
  ctx: CheckContext,
  sessionId: string,
  text: string,
): Promise<Turn> {
  const from = conn.inbound.length;
  const id = conn.sendRequest('session/prompt', textPrompt(sessionId, text));
  const response = await conn.response(id, 'the session/prompt response', ctx.timeouts.turn);
  return turnFrom(conn, from, response);
}

/** Builds the {@link Turn} view of messages from `from` up to `response`. */
export function turnFrom(conn: AgentConnection, from: number, response: Record<string, unknown>): Turn {
  const responseIndex = indexOf(conn, response);
  const updates = conn.inbound
    .slice(from, responseIndex)
    .flatMap((i) =>
      i.msg && isNotification(i.msg, 'session/update')
        ? [(i.msg.params ?? {}) as Record<string, unknown>]
        : [],
    );
  return { from, responseIndex, response, updates };
}

/**
 * Updates about the session rather than a turn's output, which the spec lets an agent send at any time
 * (schema $defs/SessionUpdate; protocol/slash-commands: the agent MAY advertise commands after creating a
 * session and update them whenever they change; protocol/session-modes: the agent may switch its own mode;
 * session_info_update, usage_update and config_option_update likewise describe the session). Arriving after
 * a prompt response they are not output of the ended turn (all four agents on npm send a late
 * `available_commands_update`).
 */
export const SESSION_LEVEL_UPDATES: ReadonlySet<string> = new Set([
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
  'usage_update',
]);

/** The `sessionUpdate` kind of session/update params. */
export function updateKind(params: Record<string, unknown>): string | undefined {
  const kind = (params.update as { sessionUpdate?: unknown } | undefined)?.sessionUpdate;
  return typeof kind === 'string' ? kind : undefined;
}

/** Turn output (every update but the session-level ones) for `sessionId` after inbound index `after`. */
export function turnUpdatesAfter(
  conn: AgentConnection,
  after: number,
  sessionId: string,
): Record<string, unknown>[] {
  return updatesAfter(conn, after, sessionId).filter((u) => !SESSION_LEVEL_UPDATES.has(updateKind(u) ?? ''));
}

/** session/update params for `sessionId` that arrived after inbound index `after`. */
export function updatesAfter(
  conn: AgentConnection,
  after: number,
  sessionId: string,
): Record<string, unknown>[] {
  return conn.inbound.slice(after + 1).flatMap((i) => {
    const m = i.msg;
    if (!m || !isNotification(m, 'session/update')) return [];
    const p = (m.params ?? {}) as Record<string, unknown>;
    return p.sessionId === sessionId ? [p] : [];
  });
}

/** Update kinds that are a turn's own output: the model is answering (text, thoughts, tool calls, a plan). */
export const TURN_OUTPUT_UPDATES: ReadonlySet<string> = new Set([
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);

/**
 * The first sign a turn is running: turn output or a permission request for the session, or the response.
 * Session-level updates ({@link SESSION_LEVEL_UPDATES}) and the echo of the user's prompt are no such sign:
 * agents send them as a turn starts, before any model call, and a cancel sent then cancels nothing running.
 */
export function progressOrResponse(
  promptId: unknown,
  sessionId: string,
): (m: Record<string, unknown>) => boolean {
  return (m) => {
    if (isResponse(m)) return m.id === promptId;
    const params = m.params as Record<string, unknown> | undefined;
    if (params?.sessionId !== sessionId) return false;
    if (isAgentRequest(m, 'session/request_permission')) return true;
    return isNotification(m, 'session/update') && TURN_OUTPUT_UPDATES.has(updateKind(params) ?? '');
  };
}

/** The tool_call updates among a turn's updates. */
export function toolCalls(updates: Record<string, unknown>[]): Record<string, unknown>[] {
  return updates.filter((u) => updateKind(u) === 'tool_call');
}

/**
 * Closes stdin and waits for the agent to exit (killing it after the deadline), so that everything it
 * will ever write is in the transcript. Returns whether it exited on its own.
 */
export async function finish(conn: AgentConnection, ctx: CheckContext): Promise<boolean> {
  if (!conn.exit) await conn.waitQuiet(ctx.settleMs, ctx.timeouts.request);
  const { exitedOnItsOwn } = await conn.shutdown(ctx.timeouts.exit, conn.exitPolicy);
  return exitedOnItsOwn;
}

/** Concatenated text of `agent_message_chunk` updates (or another chunk kind). */
export function chunkText(updates: Record<string, unknown>[], kind = 'agent_message_chunk'): string {
  let text = '';
  for (const p of updates) {
    const u = p.update as
      | { sessionUpdate?: unknown; content?: { type?: unknown; text?: unknown } }
      | undefined;
    if (u?.sessionUpdate === kind && u.content?.type === 'text' && typeof u.content.text === 'string')
      text += u.content.text;
  }
  return text;
}
