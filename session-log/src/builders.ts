// Builders for tests: valid events with sensible defaults, so a test states only what it is about.
import type { ChatMessage, FinishReason, RequestFingerprint, StreamChunk, Usage } from '@acp-snapshot/core';
import {
  type EventOf,
  LOG_FORMAT,
  LOG_FORMAT_VERSION,
  type LogRecord,
  SessionEvent,
  type SessionHeader,
  type TurnEndKind,
} from './events.js';

/** The default time of the first built record: 2025-01-01T00:00:00Z, as the deterministic agent clock starts. */
export const DEFAULT_START_TS = Date.UTC(2025, 0, 1);

/** A valid session header; every field can be overridden. */
export function buildHeader(over: Partial<SessionHeader> = {}): SessionHeader {
  return {
    type: 'session/header',
    format: LOG_FORMAT,
    version: LOG_FORMAT_VERSION,
    sessionId: 'sess-1',
    agent: { name: 'acp-snapshot-agent', version: '0.0.0-test' },
    provider: { plugin: 'test', model: 'test-model' },
    cwd: '/tmp/acp-snapshot-test/cwd',
    systemPrompt: 'You are a careful coding agent.\nWork only inside the current directory.',
    tools: [
      {
        name: 'read_file',
        description: 'Read a text file relative to the cwd.',
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ],
    config: {},
    ...over,
  };
}

/** A text delta. */
export function textChunk(text: string): StreamChunk {
  return { type: 'text', text };
}

/** A reasoning delta. */
export function reasoningChunk(text: string): StreamChunk {
  return { type: 'reasoning', text };
}

/** The start of a tool call in the stream. */
export function toolCallStart(index: number, id: string, name: string): StreamChunk {
  return { type: 'tool_call_start', index, id, name };
}

/** A tool-call arguments delta. */
export function toolCallArgs(index: number, delta: string): StreamChunk {
  return { type: 'tool_call_args', index, delta };
}

/** The terminal chunk of a model call. */
export function finishChunk(reason: FinishReason = 'stop', usage?: Usage): StreamChunk {
  return usage ? { type: 'finish', reason, usage } : { type: 'finish', reason };
}

/** An `assistant/chunk` event. */
export function buildChunk(turn: number, step: number, chunk: StreamChunk): EventOf<'assistant/chunk'> {
  return { type: 'assistant/chunk', turn, step, chunk };
}

/** Validates any event literal (throws a zod error naming the field), for tests that build events by hand. */
export function buildEvent<T extends SessionEvent>(event: T): T {
  return SessionEvent.parse(event) as T;
}

/** `turn/start`. */
export function turnStart(turn: number): EventOf<'turn/start'> {
  return { type: 'turn/start', turn };
}

/** `turn/end` (completed unless told otherwise). */
export function turnEnd(
  turn: number,
  kind: TurnEndKind = 'completed',
  error?: { message: string; code?: string },
): EventOf<'turn/end'> {
  return error ? { type: 'turn/end', turn, kind, error } : { type: 'turn/end', turn, kind };
}

/** A fingerprint with placeholder hashes, for tests that do not compare requests. */
export function buildFingerprint(over: Partial<RequestFingerprint> = {}): RequestFingerprint {
  return {
    hash: '0000000000000000',
    parts: { model: '0', system: '0', tools: '0', params: '0', messages: [] },
    ...over,
  };
}

/** `llm/request`. */
export function llmRequest(
  turn: number,
  step: number,
  fingerprint: RequestFingerprint = buildFingerprint(),
  purpose: 'turn' | 'compaction' = 'turn',
): EventOf<'llm/request'> {
  return { type: 'llm/request', turn, step, purpose, fingerprint };
}

/** `tool/call`. */
export function toolCall(
  turn: number,
  step: number,
  toolCallId: string,
  name: string,
  args: string | Record<string, unknown> = {},
): EventOf<'tool/call'> {
  const argText = typeof args === 'string' ? args : JSON.stringify(args);
  return { type: 'tool/call', turn, step, toolCallId, name, arguments: argText };
}

/** `tool/result`. */
export function toolResult(
  turn: number,
  step: number,
  toolCallId: string,
  preview: string,
  status: 'completed' | 'failed' = 'completed',
  spill?: { path: string; bytes: number },
): EventOf<'tool/result'> {
  const e: EventOf<'tool/result'> = { type: 'tool/result', turn, step, toolCallId, status, preview };
  if (spill) e.spill = spill;
  return e;
}

/** `message/committed`. */
export function messageCommitted(turn: number, message: ChatMessage): EventOf<'message/committed'> {
  return { type: 'message/committed', turn, message };
}

/** `message/committed` of a user message. */
export function userMessage(turn: number, content: string): EventOf<'message/committed'> {
  return messageCommitted(turn, { role: 'user', content });
}

/** Options for {@link makeRecords}. */
export interface MakeRecordsOptions {
  /** Time of the first record (default 2025-01-01T00:00:00Z). */
  startTs?: number;
  /** Milliseconds between consecutive records (default 1). */
  stepMs?: number;
  /** Seq of the first record (default 0 when the first event is the header, else 1). */
  startSeq?: number;
}

/** Wraps events in `seq`/`ts` envelopes as the appender writes them: consecutive seqs, evenly spaced times. */
export function makeRecords(events: readonly SessionEvent[], opts: MakeRecordsOptions = {}): LogRecord[] {
  const startTs = opts.startTs ?? DEFAULT_START_TS;
  const step = opts.stepMs ?? 1;
  const startSeq = opts.startSeq ?? (events[0]?.type === 'session/header' ? 0 : 1);
  return events.map((event, i) => ({ seq: startSeq + i, ts: startTs + i * step, event }));
}
