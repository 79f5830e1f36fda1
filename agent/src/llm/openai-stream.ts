import { type FinishReason, LlmProviderError, type StreamChunk, type Usage } from '@acp-snapshot/core';

// Turns chat.completion.chunk objects into provider-neutral StreamChunks.

const FINISH_REASONS: readonly string[] = [
  'stop',
  'length',
  'tool_calls',
  'content_filter',
  'insufficient_system_resource',
];

interface ToolCallState {
  id?: string;
  name?: string;
  started: boolean;
  /** Argument pieces that arrived before the id and name were known. */
  pending: string;
}

/** The parts of a chunk this translator reads (DeepSeek's extra fields included). */
export interface WireChunk {
  choices?: {
    index?: number;
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
    } | null;
    finish_reason?: string | null;
  }[];
  usage?: WireUsage | null;
}

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  prompt_cache_hit_tokens?: number;
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/** Provider usage -> Usage; undefined when the required counts are missing. */
export function mapUsage(u: WireUsage): Usage | undefined {
  if (!isCount(u.prompt_tokens) || !isCount(u.completion_tokens)) return undefined;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  const cached = u.prompt_cache_hit_tokens ?? u.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    totalTokens: isCount(u.total_tokens) ? u.total_tokens : u.prompt_tokens + u.completion_tokens,
    ...(isCount(reasoning) && { reasoningTokens: reasoning }),
    ...(isCount(cached) && { cachedTokens: cached }),
  };
}

/**
 * Stateful per call. `push` maps one chunk to zero or more StreamChunks; `finish` produces the one
 * terminal chunk at the end of the stream, because usage arrives after the finish_reason chunk.
 */
export class ChunkTranslator {
  private finishReason: string | undefined;
  private usage: Usage | undefined;
  private readonly calls = new Map<number, ToolCallState>();

  push(chunk: WireChunk): StreamChunk[] {
    const out: StreamChunk[] = [];
    if (chunk.usage) this.usage = mapUsage(chunk.usage) ?? this.usage;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue; // n = 1: only the first choice exists
      const d = choice.delta ?? {};
      if (typeof d.reasoning_content === 'string' && d.reasoning_content)
        out.push({ type: 'reasoning', text: d.reasoning_content });
      if (typeof d.content === 'string' && d.content) out.push({ type: 'text', text: d.content });
      for (const tc of d.tool_calls ?? []) this.toolCallDelta(tc, out);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return out;
  }

  private toolCallDelta(
    tc: NonNullable<NonNullable<NonNullable<WireChunk['choices']>[number]['delta']>['tool_calls']>[number],
    out: StreamChunk[],
  ): void {
    if (!isCount(tc.index))
      throw new LlmProviderError(
        `malformed chunk: tool call delta without a valid index: ${JSON.stringify(tc)}`,
        'malformed_chunk',
      );
    let s = this.calls.get(tc.index);
    if (!s) {
      s = { started: false, pending: '' };
      this.calls.set(tc.index, s);
    }
    if (tc.id) s.id ??= tc.id;
    if (tc.function?.name) s.name ??= tc.function.name;
    const args = tc.function?.arguments ?? '';
    if (!s.started) {
      s.pending += args;
      if (s.id === undefined || s.name === undefined) return;
      s.started = true;
      out.push({ type: 'tool_call_start', index: tc.index, id: s.id, name: s.name });
      if (s.pending) out.push({ type: 'tool_call_args', index: tc.index, delta: s.pending });
      s.pending = '';
      return;
    }
    if (args) out.push({ type: 'tool_call_args', index: tc.index, delta: args });
  }

  /** The terminal chunk; throws stream_cut when no finish_reason arrived. */
  finish(): StreamChunk {
    if (this.finishReason === undefined) {
      throw new LlmProviderError('the model stream ended before a finish_reason (stream cut)', 'stream_cut');
    }
    if (!FINISH_REASONS.includes(this.finishReason)) {
      throw new LlmProviderError(
        `malformed chunk: unknown finish_reason ${JSON.stringify(this.finishReason)} (expected one of ${FINISH_REASONS.join(', ')})`,
        'malformed_chunk',
      );
    }
    for (const [index, s] of this.calls) {
      if (!s.started) {
        throw new LlmProviderError(
          `malformed chunk: tool call ${index} never got ${s.id === undefined ? 'an id' : 'a function name'}`,
          'malformed_chunk',
        );
      }
    }
    return {
      type: 'finish',
      reason: this.finishReason as FinishReason,
      ...(this.usage && { usage: this.usage }),
    };
  }
}
