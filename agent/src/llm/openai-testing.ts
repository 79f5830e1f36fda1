// Shared setup for the plugin tests: the real emulator in-process and a plugin pointed at it.

import {
  isLlmProviderError,
  type LlmPlugin,
  type LlmProviderError,
  type LlmRequest,
  type RequestFingerprint,
  type StreamChunk,
} from '@acp-snapshot/core';
import { type Emulator, type Script, startEmulator } from '@acp-snapshot/emulator';
import { expect } from '@playwright/test';
import { createPlugin } from './openai-compatible.js';
/** The model id every test request names (ids live in tests and config only). */
export const MODEL = 'test-model-v1';
/** A placeholder fingerprint: the plugin passes it through untouched. */
export const FINGERPRINT: RequestFingerprint = {
  hash: 'h',
  parts: { model: 'm', system: 's', tools: 't', params: 'p', messages: [] },
};

/** A small provider-neutral request, with overrides. */
export function makeRequest(over: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: MODEL,
    system: 'You are a test agent.',
    messages: [{ role: 'user', content: 'hello' }],
    tools: [],
    params: {},
    purpose: 'turn',
    ...over,
  };
}

/** What one call produced: every chunk, and the error it ended with, if any. */
export interface Outcome {
  chunks: StreamChunk[];
  error?: Error;
}

/** Runs one call to the end, collecting chunks and the error instead of throwing. */
export async function run(
  plugin: LlmPlugin,
  request = makeRequest(),
  signal = new AbortController().signal,
): Promise<Outcome> {
  const chunks: StreamChunk[] = [];
  try {
    for await (const c of plugin.stream(request, { signal, turn: 0, step: 0, fingerprint: FINGERPRINT }))
      chunks.push(c);
    return { chunks };
  } catch (e) {
    return { chunks, error: e as Error };
  }
}

/** A running emulator with a plugin pointed at it, and the plugin's log lines. */
export interface Setup {
  emu: Emulator;
  plugin: LlmPlugin;
  logs: string[];
}

/** Starts an emulator with `script`, creates the plugin against it (maxRetries 0 unless given), runs `fn`. */
export async function withPlugin(
  script: Script,
  fn: (s: Setup) => Promise<void>,
  options: Record<string, unknown> = {},
  env: Record<string, string | undefined> = { DEEPSEEK_API_KEY: 'sk-test-key' },
): Promise<void> {
  const emu = await startEmulator({ script });
  const logs: string[] = [];
  try {
    const plugin = await createPlugin({
      options: { baseUrl: emu.url, maxRetries: 0, ...options },
      env,
      log: (l) => logs.push(l),
    });
    await fn({ emu, plugin, logs });
  } finally {
    await emu.close();
  }
}

/** The concatenated text (or reasoning) of a call. */
export const texts = (chunks: StreamChunk[], type: 'text' | 'reasoning') =>
  chunks.flatMap((c) => (c.type === type ? [c.text] : [])).join('');

/** Asserts the call failed with an LlmProviderError and returns it. */
export function providerError(o: Outcome): LlmProviderError {
  expect(o.error, 'the call should fail').toBeDefined();
  expect(isLlmProviderError(o.error), `${o.error?.name}: ${o.error?.message}`).toBe(true);
  return o.error as LlmProviderError;
}
