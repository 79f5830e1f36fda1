/**
 * ACP v2 beside v1 in the client: which version a test asks for, the negotiation (one connection, one
 * version: an agent that answers 1 is driven on v1 from there), and what v2 changes in a turn: the
 * `session/prompt` response only acknowledges, the turn ends with the `idle` state update carrying its stop
 * reason; history comes back through `session/resume` with `replayFrom: {type: 'start'}` (v2 has no
 * session/load); permission requests name their subject instead of a tool call. The SDK's v2 client
 * (`@agentclientprotocol/sdk/experimental/v2`) does the wire; the client of v1 (acp-client.ts) calls in here.
 */
import type * as acp from '@agentclientprotocol/sdk';
import * as acp2 from '@agentclientprotocol/sdk/experimental/v2';
import type { AgentProcess } from '../process/agent-process.js';

/** The protocol a test asks for: 1, 2, or `'highest'` (asks for 2, continues on what the agent answers). */
export type ProtocolChoice = 1 | 2 | 'highest';

/** What initialize settled: the version asked for and the one the connection speaks. */
export interface Negotiation {
  asked: ProtocolChoice;
  version: 1 | 2;
  /** `name version` from the initialize result, when the agent gave them. */
  agent?: string;
}

/** What initialize settled, as the report's `acp protocol` line (and the step's note on a downgrade). */
export function protocolLine(n: Negotiation): string {
  if (n.version === 2) return 'ACP v2';
  return `asked for ACP v2 ('${String(n.asked)}'); ${n.agent ?? 'the agent'} answered 1: this run is ACP v1`;
}

/** A test demanded v2 (`protocolVersion: 2`) and the agent answered another version. */
export class ProtocolVersionError extends Error {
  override name = 'ProtocolVersionError';
  constructor(
    readonly answered: unknown,
    agent: string | undefined,
  ) {
    super(
      `initialize: the test asks for ACP protocol version 2 and ${agent ?? 'the agent'} answered ${JSON.stringify(answered)}; ` +
        "run it on v1 with test.use({ protocolVersion: 1 }) (or 'highest', which continues on the version the agent answers)",
    );
  }
}

/** What the v2 client hands back to the client that owns it. */
export interface V2Handlers {
  update(params: acp2.UpdateSessionNotification): void;
  permission(
    params: acp2.RequestPermissionRequest,
  ): acp2.RequestPermissionResponse | Promise<acp2.RequestPermissionResponse>;
}

/** The SDK's v2 client app of one AcpClient. */
export function v2ClientApp(handlers: V2Handlers): acp2.ClientApp {
  return acp2
    .client({ name: 'acp-snapshot' })
    .onNotification('session/update', ({ params }) => handlers.update(params))
    .onRequest('session/request_permission', ({ params }) => handlers.permission(params));
}

/** The v1 client capabilities as v2 declares them: v2 has no client fs or terminal, so nothing of them is left. */
export function v2Capabilities(_v1: acp.ClientCapabilities): acp2.ClientCapabilities {
  return {};
}

/**
 * Sends initialize asking for v2 on a fresh v2 connection of `proc`. An answer of 2 leaves the v2 connection
 * attached (`proc.connectionV2`); an answer of 1 re-attaches the v1 app (`proc.connection`) and returns the
 * v1 result as the agent sent it; `demand` makes any answer but 2 a {@link ProtocolVersionError}.
 */
export async function initializeV2(
  proc: AgentProcess,
  app: { v1: acp.ClientApp; v2: acp2.ClientApp },
  params: { capabilities: acp2.ClientCapabilities; extra?: Record<string, unknown> },
  demand: boolean,
  guard: <T>(pending: Promise<T>) => Promise<T>,
): Promise<
  | { version: 2; result: acp2.InitializeResponse }
  | { version: 1; result: acp.InitializeResponse; agent?: string }
> {
  proc.connection.close();
  const connection = proc.attach(app.v2);
  proc.connectionV2 = connection;
  const linesBefore = proc.lines.length;
  try {
    const result = await guard(
      connection.agent.request('initialize', {
        protocolVersion: 2,
        info: { name: 'acp-snapshot', version: '0.1.0' },
        capabilities: params.capabilities,
        ...params.extra,
      }),
    );
    return { version: 2, result };
  } catch (e) {
    // The SDK's v2 client refuses any other answer; the agent's own answer is on stdout.
    const answer = initializeAnswer(proc.lines.slice(linesBefore).map((l) => l.text));
    if (!answer || answer.protocolVersion === 2) throw e;
    const agent = agentName(answer);
    if (demand) throw new ProtocolVersionError(answer.protocolVersion, agent);
    proc.connectionV2 = undefined;
    connection.close();
    proc.connection = proc.attach(app.v1);
    return { version: 1, result: answer as unknown as acp.InitializeResponse, ...(agent ? { agent } : {}) };
  }
}

/** The result of the first initialize response among stdout lines. */
function initializeAnswer(lines: readonly string[]): Record<string, unknown> | undefined {
  for (const text of lines) {
    try {
      const m = JSON.parse(text) as { result?: unknown; method?: unknown };
      if (m.method === undefined && m.result && typeof m.result === 'object' && 'protocolVersion' in m.result)
        return m.result as Record<string, unknown>;
    } catch {}
  }
  return undefined;
}

/** `name version` of an initialize result (v1 `agentInfo`, v2 `info`). */
export function agentName(result: Record<string, unknown>): string | undefined {
  const info = (result.info ?? result.agentInfo) as { name?: unknown; version?: unknown } | undefined;
  return typeof info?.name === 'string' ? `${info.name} ${String(info.version ?? '')}`.trim() : undefined;
}

/**
 * MCP servers as v2's session/new reads them: a stdio server names its transport (`type: 'stdio'`), which v1
 * leaves out (claude-agent-acp 0.101 on v2 refuses a server without it as invalid params).
 */
export function v2McpServers(servers: readonly acp.McpServer[]): acp2.McpServer[] {
  return servers.map((s) => ('type' in s && s.type ? s : { type: 'stdio', ...s }) as acp2.McpServer);
}

/** A v2 permission request as the v1 request the client's answer sources read (its tool call, its options). */
export function asV1PermissionRequest(params: acp2.RequestPermissionRequest): acp.RequestPermissionRequest {
  const subject = params.subject as { type?: string; toolCall?: acp2.ToolCallUpdate } | null | undefined;
  const toolCall = subject?.type === 'tool_call' && subject.toolCall ? subject.toolCall : undefined;
  return {
    sessionId: params.sessionId,
    options: params.options as acp.PermissionOption[],
    toolCall: {
      toolCallId: toolCall?.toolCallId ?? '',
      title: toolCall?.title ?? params.title,
    } as acp.ToolCallUpdate,
  };
}

/** The idle state update that ends a v2 turn: its stop reason (`end_turn`, `cancelled`...). */
export function idleStopReason(update: {
  sessionUpdate: string;
  state?: unknown;
  stopReason?: unknown;
}): string | undefined {
  if (update.sessionUpdate !== 'state_update' || update.state !== 'idle') return undefined;
  return typeof update.stopReason === 'string' ? update.stopReason : 'end_turn';
}

/** A v2 `session/prompt` response: it acknowledges with the user message's id, and ends nothing. */
export function isPromptAck(result: unknown): boolean {
  return (
    !!result &&
    typeof result === 'object' &&
    typeof (result as { messageId?: unknown }).messageId === 'string' &&
    !('stopReason' in result)
  );
}

/** The text a v2 turn's agent messages hold: chunks append, an `agent_message` upsert replaces (null clears). */
export function v2TurnText(updates: ReadonlyArray<Record<string, unknown>>): string {
  const messages = new Map<string, string>();
  for (const u of updates) {
    const id = String(u.messageId);
    if (u.sessionUpdate === 'agent_message_chunk') {
      const c = u.content as { type?: string; text?: string } | undefined;
      messages.set(id, (messages.get(id) ?? '') + (c?.type === 'text' ? (c.text ?? '') : ''));
    } else if (u.sessionUpdate === 'agent_message' && 'content' in u) {
      const blocks = Array.isArray(u.content) ? (u.content as Array<{ type?: string; text?: string }>) : [];
      messages.set(id, blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join(''));
    }
  }
  return [...messages.values()].join('');
}
