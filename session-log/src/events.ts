import { ChatMessage, RequestFingerprint, StreamChunk, ToolSchema, Usage } from '@acp-snapshot/core';
import * as z from 'zod';

/** The format name written in every session log header. */
export const LOG_FORMAT = 'acp-snapshot/session-log';
/** The current format version; readers reject other majors with a clear error. */
export const LOG_FORMAT_VERSION = 1;

/** A reference to bulk moved into a sidecar file by projection: `fixtures/sidecars/<sha256>.json`. */
export const SidecarRef = z.strictObject({ sidecar: z.string().regex(/^[0-9a-f]{64}$/) });
export type SidecarRef = z.infer<typeof SidecarRef>;

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
