import * as z from 'zod';

/** The format name written in every session log header. */
export const LOG_FORMAT = 'acp-snapshot/session-log';
/** The current format version; readers reject other majors with a clear error. */
export const LOG_FORMAT_VERSION = 1;

/** Token usage reported by the provider on the terminal chunk. */
export const Usage = z.strictObject({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  cachedTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof Usage>;

/** Provider-neutral finish reasons (OpenAI / DeepSeek vocabulary). */
export const FinishReason = z.enum([
  'stop',
  'length',
  'tool_calls',
  'content_filter',
  'insufficient_system_resource',
]);
export type FinishReason = z.infer<typeof FinishReason>;

/** One provider-neutral stream chunk: what an LLM plugin yields and what the log records. */
export const StreamChunk = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('reasoning'), text: z.string() }),
  z.strictObject({
    type: z.literal('tool_call_start'),
    index: z.number().int().nonnegative(),
    id: z.string(),
    name: z.string(),
  }),
  z.strictObject({
    type: z.literal('tool_call_args'),
    index: z.number().int().nonnegative(),
    delta: z.string(),
  }),
  z.strictObject({ type: z.literal('finish'), reason: FinishReason, usage: Usage.optional() }),
]);
export type StreamChunk = z.infer<typeof StreamChunk>;

/** A tool definition as sent to the model (JSON Schema parameters). */
export const ToolSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolSchema = z.infer<typeof ToolSchema>;

/** A tool call requested by the assistant, arguments as the raw JSON text the model produced. */
export const ToolCallRequest = z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() });
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;

/** A conversation message in the provider-neutral shape the agent keeps and sends. */
export const ChatMessage = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('user'), content: z.string() }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string(),
    reasoning: z.string().optional(),
    toolCalls: z.array(ToolCallRequest).optional(),
  }),
  z.strictObject({ role: z.literal('tool'), toolCallId: z.string(), content: z.string() }),
  /** A compaction summary standing in for the messages it replaced. */
  z.strictObject({ role: z.literal('summary'), content: z.string() }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

/** A reference to bulk moved into a sidecar file by projection: `fixtures/sidecars/<sha256>.json`. */
export const SidecarRef = z.strictObject({ sidecar: z.string().regex(/^[0-9a-f]{64}$/) });
export type SidecarRef = z.infer<typeof SidecarRef>;

/** Per-part hashes of a model request, so a drift can be located. */
export const RequestFingerprint = z.strictObject({
  hash: z.string(),
  parts: z.strictObject({
    model: z.string(),
    system: z.string(),
    tools: z.string(),
    params: z.string(),
    messages: z.array(z.string()),
  }),
});
export type RequestFingerprint = z.infer<typeof RequestFingerprint>;

const turn = z.number().int().nonnegative();
const step = z.number().int().nonnegative();

/** The first event of every log: what produced it and what shapes its requests. */
export const SessionHeader = z.strictObject({
  type: z.literal('session/header'),
  format: z.literal(LOG_FORMAT),
  version: z.literal(LOG_FORMAT_VERSION),
  sessionId: z.string(),
  agent: z.strictObject({ name: z.string(), version: z.string() }),
  provider: z.strictObject({ plugin: z.string(), model: z.string() }),
  cwd: z.string(),
  systemPrompt: z.union([z.string(), SidecarRef]),
  tools: z.union([z.array(ToolSchema), SidecarRef]),
  /** Config that shapes requests (temperature, max tokens, budgets...). */
  config: z.record(z.string(), z.unknown()),
});
export type SessionHeader = z.infer<typeof SessionHeader>;

export const TurnStart = z.strictObject({ type: z.literal('turn/start'), turn });
export const TurnEndKind = z.enum([
  'completed',
  'cancelled',
  'error',
  'max_tokens',
  'refusal',
  'max_turn_requests',
]);
export const TurnEnd = z.strictObject({
  type: z.literal('turn/end'),
  turn,
  kind: TurnEndKind,
  error: z.strictObject({ message: z.string(), code: z.string().optional() }).optional(),
});
export const LlmRequestEvent = z.strictObject({
  type: z.literal('llm/request'),
  turn,
  step,
  purpose: z.enum(['turn', 'compaction']),
  fingerprint: RequestFingerprint,
});
export const AssistantChunk = z.strictObject({
  type: z.literal('assistant/chunk'),
  turn,
  step,
  chunk: StreamChunk,
});
export const ToolCallEvent = z.strictObject({
  type: z.literal('tool/call'),
  turn,
  step,
  toolCallId: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export const ToolResultEvent = z.strictObject({
  type: z.literal('tool/result'),
  turn,
  step,
  toolCallId: z.string(),
  status: z.enum(['completed', 'failed']),
  preview: z.string(),
  spill: z.strictObject({ path: z.string(), bytes: z.number().int().nonnegative() }).optional(),
});
export const PermissionRequestEvent = z.strictObject({
  type: z.literal('permission/request'),
  turn,
  toolCallId: z.string(),
  options: z.array(z.strictObject({ optionId: z.string(), kind: z.string(), name: z.string() })),
});
export const PermissionOutcomeEvent = z.strictObject({
  type: z.literal('permission/outcome'),
  turn,
  toolCallId: z.string(),
  outcome: z.enum(['selected', 'cancelled']),
  optionId: z.string().optional(),
});
export const MessageCommitted = z.strictObject({
  type: z.literal('message/committed'),
  turn,
  message: ChatMessage,
});
export const CompactionSummary = z.strictObject({
  type: z.literal('compaction/summary'),
  turn,
  rawOutput: z.string(),
  /** How many leading conversation messages the summary replaces. */
  replacedMessages: z.number().int().nonnegative(),
  usage: Usage.optional(),
  /** Set when the summary came from a model call through the LLM plugin (replay serves it). */
  llmStreamCall: z.literal(true).optional(),
});
export const Boundary = z.strictObject({
  type: z.literal('boundary'),
  kind: z.enum(['compaction', 'resume']),
  turn: turn.optional(),
  /**
   * How a `resume` boundary was reached: `session/resume` continued the session without showing its
   * history to the client. Absent: `session/load` (which replays the history first).
   */
  method: z.literal('session/resume').optional(),
});
/**
 * The session's mode changed (`session/set_mode`, or `session/set_config_option` of the `mode` option).
 * The mode decides the permission policy; the latest one holds from here on, also after a load.
 */
export const SessionModeEvent = z.strictObject({
  type: z.literal('session/mode'),
  modeId: z.string().min(1),
});
/** A session config option other than the mode changed (`session/set_config_option`), e.g. the model. */
export const SessionConfigEvent = z.strictObject({
  type: z.literal('session/config'),
  configId: z.string().min(1),
  value: z.string(),
});
/** The client closed the session (`session/close`): its running turn was cancelled; nothing follows in this process. */
export const SessionCloseEvent = z.strictObject({ type: z.literal('session/close') });

/** Every logical event of a session log, the header first. */
export const SessionEvent = z.discriminatedUnion('type', [
  SessionHeader,
  TurnStart,
  TurnEnd,
  LlmRequestEvent,
  AssistantChunk,
  ToolCallEvent,
  ToolResultEvent,
  PermissionRequestEvent,
  PermissionOutcomeEvent,
  MessageCommitted,
  CompactionSummary,
  Boundary,
  SessionModeEvent,
  SessionConfigEvent,
  SessionCloseEvent,
]);
export type SessionEvent = z.infer<typeof SessionEvent>;
/** Body events: everything but the header. */
export type BodyEvent = Exclude<SessionEvent, SessionHeader>;
export type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;
export type TurnEndKind = z.infer<typeof TurnEndKind>;

/** A body event with its storage envelope; projected fixtures carry no envelope. */
export interface LogRecord {
  seq?: number;
  /** Milliseconds since the Unix epoch, from the injected clock. */
  ts?: number;
  event: SessionEvent;
}
