import { LlmAbortError } from '@acp-snapshot/core';

/** Recorded per-chunk delays are capped so a slow recording cannot slow a test suite down. */
export const MAX_RECORDED_DELAY_MS = 50;

/** Resolves after `ms`, or rejects with LlmAbortError as soon as `signal` aborts. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new LlmAbortError());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmAbortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A model that never answers: settles only when `signal` aborts, rejecting with LlmAbortError as the
 * live adapter does when a call is cancelled.
 */
export function hangUntilAborted(signal: AbortSignal): Promise<never> {
  if (signal.aborted) return Promise.reject(new LlmAbortError());
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(new LlmAbortError()), { once: true });
  });
}
