import type { ChatMessage, RequestFingerprint, StreamChunk, ToolSchema } from './messages.js';
import type { VolatileRoots } from './roots.js';

/**
 * The LLM plugin contract shared by the agent (which calls it) and every implementation
 * (`openai-compatible` / `deepseek` in agent/, `replay` in llm-replay/). It lives here, in the
 * bottom package, so llm-replay never imports agent/ and agent never imports replay code.
 */

/** Sampling and size parameters that shape a request. */
export interface LlmParams {
  temperature?: number;
  maxTokens?: number;
  /** Provider extras that shape the request (e.g. thinking mode); part of the fingerprint. */
  extra?: Record<string, unknown>;
}

/** One provider-neutral model request. */
export interface LlmRequest {
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: ToolSchema[];
  params: LlmParams;
  /** Why the call is made: a turn step, or a compaction summary. */
  purpose: 'turn' | 'compaction';
}

/** What the agent tells the plugin about the call it is making. */
export interface LlmCallContext {
  signal: AbortSignal;
  turn: number;
  step: number;
  /** The fingerprint the agent computed and persisted for this request (roots already replaced). */
  fingerprint: RequestFingerprint;
  /** The roots the fingerprint replaced: replay hydrates recorded output with them. */
  roots?: VolatileRoots;
}

/** A loaded LLM plugin. */
export interface LlmPlugin {
  readonly name: string;
  /** Streams one model call. Rejects with LlmProviderError / LlmAbortError. */
  stream(request: LlmRequest, ctx: LlmCallContext): AsyncIterable<StreamChunk>;
  /** Called once at graceful shutdown; a plugin reports problems (e.g. unused replay calls) here. */
  close?(): Promise<void>;
}

/** What a plugin module receives from the agent's composition root. */
export interface LlmPluginOptions {
  /** The plugin's own options block from config (already env-substituted). */
  options: Record<string, unknown>;
  /** The environment the agent was given (already scrubbed in replay). */
  env: Record<string, string | undefined>;
  /** Writes one diagnostic line to stderr. */
  log: (line: string) => void;
}

/** Every plugin module exports `createPlugin` of this type. */
export type LlmPluginFactory = (opts: LlmPluginOptions) => LlmPlugin | Promise<LlmPlugin>;

/** Provider error codes, provider-neutral; replay throws the same codes the live adapter raises. */
export type LlmErrorCode =
  | 'unauthorized' // 401
  | 'payment_required' // 402: insufficient balance
  | 'bad_request' // 400
  | 'unprocessable' // 422: invalid parameters
  | 'rate_limited' // 429
  | 'server_error' // 5xx
  | 'stream_cut' // the connection ended before a terminal finish
  | 'malformed_chunk' // a chunk that does not parse
  | 'stream_error' // an error object mid-stream
  | 'connection' // could not reach the provider
  | 'replay'; // llm-replay's own failures (drift, exhausted)

/** A provider failure, raised by every LLM plugin in the same shape. */
export class LlmProviderError extends Error {
  override readonly name = 'LlmProviderError';
  constructor(
    message: string,
    readonly code: LlmErrorCode,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Raised when a model call is aborted through its signal (cancel). */
export class LlmAbortError extends Error {
  override readonly name = 'LlmAbortError';
  constructor(message = 'model call aborted') {
    super(message);
  }
}

/**
 * True for an LlmProviderError from any bundle: plugins are bundled separately from the agent,
 * so the check goes by name and code, not by class identity.
 */
export function isLlmProviderError(e: unknown): e is LlmProviderError {
  return (
    e instanceof Error && e.name === 'LlmProviderError' && typeof (e as LlmProviderError).code === 'string'
  );
}

/** True for an LlmAbortError from any bundle. */
export function isLlmAbortError(e: unknown): e is LlmAbortError {
  return e instanceof Error && e.name === 'LlmAbortError';
}
