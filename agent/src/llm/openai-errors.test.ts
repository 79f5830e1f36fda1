// The plugin's failures against the real emulator: HTTP errors, cut and malformed streams, hangs, aborts, retries.

import { isLlmAbortError, type StreamChunk } from '@acp-snapshot/core';
import { type Script, startEmulator } from '@acp-snapshot/emulator';
import { expect, test } from '@playwright/test';
import { createPlugin } from './openai-compatible.js';
import { FINGERPRINT, makeRequest, providerError, run, texts, withPlugin } from './openai-testing.js';

const httpCases: [number, string, string][] = [
  [400, 'bad_request', 'Invalid Format'],
  [401, 'unauthorized', 'Authentication Fails'],
  [402, 'payment_required', 'Insufficient Balance'],
  [422, 'unprocessable', 'Invalid Parameters'],
  [429, 'rate_limited', 'Rate Limit Reached'],
  [500, 'server_error', 'Server Error'],
  [503, 'server_error', 'Server Overloaded'],
];
for (const [status, code, message] of httpCases) {
  test(`HTTP ${status} becomes LlmProviderError ${code} with the status and the provider's message`, async () => {
    await withPlugin({ responses: [{ fail: { kind: 'http', status } }] }, async ({ emu, plugin }) => {
      const e = providerError(await run(plugin));
      expect(e.code).toBe(code);
      expect(e.status).toBe(status);
      expect(e.message).toContain(`HTTP ${status}`);
      expect(e.message).toContain(message);
      if (status === 401) expect(e.message).toContain('DEEPSEEK_API_KEY');
      expect(emu.requests).toHaveLength(1);
    });
  });
}

test('a stream cut mid-way yields the prefix, then stream_cut; a clean end without finish_reason is stream_cut too', async () => {
  const script: Script = {
    responses: [
      { fail: { kind: 'cut', afterChunks: 3, reply: { text: 'alpha beta gamma delta epsilon' } } },
      { fail: { kind: 'cut', afterChunks: 2, graceful: true, reply: { text: 'alpha beta gamma delta' } } },
    ],
  };
  await withPlugin(script, async ({ plugin }) => {
    const destroyed = await run(plugin);
    expect(texts(destroyed.chunks, 'text')).toBe('alpha beta gamma');
    expect(providerError(destroyed).code).toBe('stream_cut');
    expect(destroyed.chunks.some((c) => c.type === 'finish')).toBe(false);
    const graceful = await run(plugin);
    expect(texts(graceful.chunks, 'text')).toBe('alpha beta');
    const e = providerError(graceful);
    expect(e.code).toBe('stream_cut');
    expect(e.message).toContain('finish_reason');
  });
});

test('a malformed chunk is malformed_chunk naming the bad data; an error object mid-stream is stream_error', async () => {
  const script: Script = {
    responses: [
      { fail: { kind: 'malformed', afterChunks: 1, data: '{"choices":[{"delta":{"content":"x"' } },
      { fail: { kind: 'stream_error', afterChunks: 1, message: 'model overloaded, try again' } },
    ],
  };
  await withPlugin(script, async ({ plugin, logs }) => {
    const malformed = providerError(await run(plugin));
    expect(malformed.code).toBe('malformed_chunk');
    expect(malformed.message).toContain('{"choices":[{"delta":{"content":"x"');
    const streamError = providerError(await run(plugin));
    expect(streamError.code).toBe('stream_error');
    expect(streamError.message).toContain('model overloaded, try again');
    expect(logs).toEqual([]);
  });
});

test('a hung request ends with LlmAbortError promptly when the signal fires, and the connection is dropped', async () => {
  await withPlugin({ responses: [{ fail: { kind: 'hang' } }] }, async ({ emu, plugin }) => {
    const abort = new AbortController();
    const pending = run(plugin, makeRequest(), abort.signal);
    await emu.waitForRequests(1);
    const t0 = Date.now();
    abort.abort();
    const o = await pending;
    expect(Date.now() - t0, 'promptly: a missed abort would hang').toBeLessThan(5_000);
    expect(isLlmAbortError(o.error)).toBe(true);
    await emu.waitFor(() => emu.requests[0]!.closed === 'client', 'the plugin to drop the connection');
  });
});

test('a stream that hangs after some chunks aborts with LlmAbortError after yielding them', async () => {
  await withPlugin(
    {
      responses: [
        {
          fail: {
            kind: 'hang',
            afterChunks: 2,
            reply: { text: 'one two three four' },
            chunking: { keepAliveEvery: 0 },
          },
        },
      ],
    },
    async ({ emu, plugin }) => {
      const abort = new AbortController();
      const chunks: StreamChunk[] = [];
      let error: unknown;
      try {
        for await (const c of plugin.stream(makeRequest(), {
          signal: abort.signal,
          turn: 0,
          step: 0,
          fingerprint: FINGERPRINT,
        })) {
          chunks.push(c);
          if (texts(chunks, 'text') === 'one two') abort.abort();
        }
      } catch (e) {
        error = e;
      }
      expect(isLlmAbortError(error)).toBe(true);
      expect(texts(chunks, 'text')).toBe('one two');
      await emu.waitFor(() => emu.requests[0]!.closed === 'client', 'the plugin to drop the connection');
    },
  );
});

test('retries are bounded by maxRetries: a 500 with maxRetries 1 makes exactly two requests', async () => {
  const fail500 = { fail: { kind: 'http' as const, status: 500, retryAfterMs: 1 } };
  await withPlugin(
    { responses: [fail500, fail500, fail500, { reply: { text: 'never reached' } }] },
    async ({ emu, plugin }) => {
      const e = providerError(await run(plugin));
      expect(e.code).toBe('server_error');
      expect(emu.requests).toHaveLength(2);
      expect(emu.served).toBe(2);
    },
    { maxRetries: 1 },
  );
});

test('a 429 followed by a reply succeeds within the retry budget', async () => {
  await withPlugin(
    {
      responses: [
        { fail: { kind: 'http', status: 429, retryAfterMs: 1 } },
        { reply: { text: 'after retry' } },
      ],
    },
    async ({ emu, plugin }) => {
      const o = await run(plugin);
      expect(o.error).toBeUndefined();
      expect(texts(o.chunks, 'text')).toBe('after retry');
      expect(emu.requests).toHaveLength(2);
    },
    { maxRetries: 2 },
  );
});

test('an abort during the retry backoff ends the call at once, with no further request', async () => {
  await withPlugin(
    {
      responses: [{ fail: { kind: 'http', status: 503, retryAfterMs: 30_000 } }, { reply: { text: 'late' } }],
    },
    async ({ emu, plugin }) => {
      const abort = new AbortController();
      const pending = run(plugin, makeRequest(), abort.signal);
      await emu.waitFor(() => emu.requests[0]?.closed === 'finished', 'the 503 to be answered');
      const t0 = Date.now();
      abort.abort();
      const o = await pending;
      expect(Date.now() - t0, 'well before the 30 s retry wait a missed abort would sit out').toBeLessThan(
        5_000,
      );
      expect(isLlmAbortError(o.error)).toBe(true);
      expect(emu.requests).toHaveLength(1);
    },
    { maxRetries: 2 },
  );
});

test('a refused connection is the connection code, naming the base URL', async () => {
  const emu = await startEmulator({ script: { responses: [] } });
  const url = emu.url;
  await emu.close();
  const plugin = await createPlugin({
    options: { baseUrl: url, maxRetries: 0 },
    env: { DEEPSEEK_API_KEY: 'k' },
    log: () => {},
  });
  const e = providerError(await run(plugin));
  expect(e.code).toBe('connection');
  expect(e.message).toContain(url);
  expect(e.message).toContain('ECONNREFUSED');
});

test('a request that gets no headers within timeoutMs is the connection code, naming the timeout', async () => {
  await withPlugin(
    { responses: [{ fail: { kind: 'hang' } }] },
    async ({ emu, plugin }) => {
      const e = providerError(await run(plugin));
      expect(e.code).toBe('connection');
      expect(e.message).toContain('timed out after 300 ms');
      expect(emu.requests).toHaveLength(1);
    },
    { timeoutMs: 300 },
  );
});

test('a request without a model id (and no fallback) fails as bad_request without sending anything', async () => {
  await withPlugin({ responses: [{ reply: { text: 'x' } }] }, async ({ emu, plugin }) => {
    const e = providerError(await run(plugin, makeRequest({ model: '' })));
    expect(e.code).toBe('bad_request');
    expect(e.message).toContain('llm.model');
    expect(emu.requests).toHaveLength(0);
  });
});
