// Maps openai SDK / network failures to LlmProviderError codes (and aborts to LlmAbortError).
import {
  cutText,
  isLlmAbortError,
  isLlmProviderError,
  LlmAbortError,
  type LlmErrorCode,
  LlmProviderError,
} from '@acp-snapshot/core';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

/** What the mapper needs to word its messages. */
export interface ErrorContext {
  baseUrl: string;
  apiKeyEnv: string;
  timeoutMs: number;
  /** Whether the response had started streaming (a network error then means a cut stream). */
  phase: 'request' | 'stream';
  /** The last data line the SDK could not parse, if it reported one. */
  badData?: string | undefined;
}

/** HTTP status -> provider-neutral code. */
export function codeForStatus(status: number): LlmErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 402) return 'payment_required';
  if (status === 422) return 'unprocessable';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'bad_request';
}

function hintFor(code: LlmErrorCode, ctx: ErrorContext): string {
  switch (code) {
    case 'unauthorized':
      return ` (check the API key in ${ctx.apiKeyEnv})`;
    case 'payment_required':
      return ' (the account balance is insufficient; top it up with the provider)';
    case 'rate_limited':
      return ' (rate limited; retries are bounded by options.maxRetries)';
    default:
      return '';
  }
}

/** The deepest cause's message, where network errors keep the useful part (ECONNREFUSED ...). */
function rootCause(e: unknown): string {
  let cur: unknown = e;
  const seen = new Set<unknown>();
  let text = e instanceof Error ? e.message : String(e);
  while (cur instanceof Error && !seen.has(cur)) {
    seen.add(cur);
    const code = (cur as { code?: unknown }).code;
    text = `${cur.message}${typeof code === 'string' && !cur.message.includes(code) ? ` (${code})` : ''}`;
    cur = (cur as { cause?: unknown }).cause;
  }
  return text;
}

function truncate(s: string, max = 200): string {
  return s.length <= max ? s : `${cutText(s, max)}...`;
}

/** Any failure of a call -> LlmProviderError / LlmAbortError, with the provider's message and status. */
export function mapError(e: unknown, signal: AbortSignal, ctx: ErrorContext): Error {
  if (isLlmProviderError(e) || isLlmAbortError(e)) return e;
  if (signal.aborted || e instanceof APIUserAbortError) return new LlmAbortError();
  if (e instanceof APIConnectionTimeoutError) {
    return new LlmProviderError(
      `model request to ${ctx.baseUrl} timed out after ${ctx.timeoutMs} ms (options.timeoutMs)`,
      'connection',
    );
  }
  if (e instanceof APIConnectionError) {
    return new LlmProviderError(
      `could not reach the model provider at ${ctx.baseUrl}: ${rootCause(e)}`,
      'connection',
    );
  }
  if (e instanceof APIError) {
    const body = e.error as { message?: unknown } | undefined;
    const providerMessage = typeof body?.message === 'string' ? body.message : e.message;
    if (e.status === undefined) {
      return new LlmProviderError(
        `the model provider sent an error mid-stream: ${providerMessage}`,
        'stream_error',
      );
    }
    const code = codeForStatus(e.status);
    return new LlmProviderError(
      `model provider returned HTTP ${e.status} (${code}): ${providerMessage}${hintFor(code, ctx)}`,
      code,
      e.status,
    );
  }
  if (e instanceof SyntaxError) {
    const data = ctx.badData === undefined ? '' : `: ${truncate(ctx.badData)}`;
    return new LlmProviderError(
      `the model provider sent a chunk that is not valid JSON (${e.message})${data}`,
      'malformed_chunk',
    );
  }
  if (ctx.phase === 'stream') {
    return new LlmProviderError(
      `the model stream was cut before a finish_reason: ${rootCause(e)}`,
      'stream_cut',
    );
  }
  return new LlmProviderError(`model request to ${ctx.baseUrl} failed: ${rootCause(e)}`, 'connection');
}
