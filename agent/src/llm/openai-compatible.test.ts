// The OpenAI-compatible plugin against the real model emulator, in-process.
import {
  isLlmAbortError,
  isLlmProviderError,
  type LlmPlugin,
  type LlmProviderError,
  type LlmRequest,
  type RequestFingerprint,
  type StreamChunk,
} from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import type { Script } from '../../../scripts/emulator/script.js';
import { type Emulator, startEmulator } from '../../../scripts/emulator/server.js';
import { createPlugin } from './openai-compatible.js';
import { SUMMARY_HEADING } from './openai-messages.js';

const MODEL = 'test-model-v1';
const FINGERPRINT: RequestFingerprint = {
  hash: 'h',
  parts: { model: 'm', system: 's', tools: 't', params: 'p', messages: [] },
};

function makeRequest(over: Partial<LlmRequest> = {}): LlmRequest {
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

interface Outcome {
  chunks: StreamChunk[];
  error?: Error;
}

async function run(
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

interface Setup {
  emu: Emulator;
  plugin: LlmPlugin;
  logs: string[];
}

async function withPlugin(
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

const texts = (chunks: StreamChunk[], type: 'text' | 'reasoning') =>
  chunks.flatMap((c) => (c.type === type ? [c.text] : [])).join('');

function providerError(o: Outcome): LlmProviderError {
  expect(o.error, 'the call should fail').toBeDefined();
  expect(isLlmProviderError(o.error), `${o.error?.name}: ${o.error?.message}`).toBe(true);
  return o.error as LlmProviderError;
}

test('a text reply streams text chunks, then one finish with usage; the request is a streaming chat completion', async () => {
  await withPlugin(
    {
      responses: [
        { reply: { text: 'Hello there, friend.', usage: { promptTokens: 42, completionTokens: 5 } } },
      ],
    },
    async ({ emu, plugin }) => {
      const o = await run(plugin, makeRequest({ params: { temperature: 0.2, maxTokens: 512 } }));
      expect(o.error).toBeUndefined();
      expect(texts(o.chunks, 'text')).toBe('Hello there, friend.');
      expect(o.chunks.filter((c) => c.type === 'text').length).toBeGreaterThan(2);
      expect(o.chunks.at(-1)).toEqual({
        type: 'finish',
        reason: 'stop',
        usage: {
          promptTokens: 42,
          completionTokens: 5,
          totalTokens: 47,
          reasoningTokens: 0,
          cachedTokens: 0,
        },
      });
      expect(o.chunks.filter((c) => c.type === 'finish')).toHaveLength(1);
      expect(emu.requests).toHaveLength(1);
      const r = emu.requests[0]!;
      expect(r.path).toBe('/chat/completions');
      expect(r.headers.authorization).toBe('Bearer [redacted]');
      expect(r.body).toEqual({
        model: MODEL,
        messages: [
          { role: 'system', content: 'You are a test agent.' },
          { role: 'user', content: 'hello' },
        ],
        temperature: 0.2,
        max_tokens: 512,
        stream: true,
        stream_options: { include_usage: true },
      });
    },
  );
});

test('reasoning_content deltas become reasoning chunks, before the text', async () => {
  await withPlugin(
    { responses: [{ reply: { reasoning: 'The user says hello. I answer.', text: 'Hi!' } }] },
    async ({ plugin }) => {
      const o = await run(plugin);
      expect(texts(o.chunks, 'reasoning')).toBe('The user says hello. I answer.');
      expect(texts(o.chunks, 'text')).toBe('Hi!');
      const lastReasoning = o.chunks.findLastIndex((c) => c.type === 'reasoning');
      expect(lastReasoning).toBeLessThan(o.chunks.findIndex((c) => c.type === 'text'));
      expect(o.chunks.at(-1)).toMatchObject({
        type: 'finish',
        reason: 'stop',
        usage: { reasoningTokens: 8 },
      });
    },
  );
});

test('two parallel tool calls, interleaved on the wire, are reported by index with their ids and argument pieces', async () => {
  const script: Script = {
    responses: [
      {
        reply: {
          text: 'Let me look.',
          toolCalls: [
            { name: 'read_file', arguments: { path: 'src/a.ts' } },
            { name: 'bash', arguments: { command: 'ls -la' } },
          ],
        },
        chunking: { interleaveToolCalls: true, argsPieceChars: 4 },
      },
    ],
  };
  await withPlugin(script, async ({ plugin }) => {
    const o = await run(plugin);
    expect(o.error).toBeUndefined();
    const starts = o.chunks.filter((c) => c.type === 'tool_call_start');
    expect(starts).toEqual([
      { type: 'tool_call_start', index: 0, id: 'call_0', name: 'read_file' },
      { type: 'tool_call_start', index: 1, id: 'call_1', name: 'bash' },
    ]);
    const args = (i: number) =>
      o.chunks.flatMap((c) => (c.type === 'tool_call_args' && c.index === i ? [c.delta] : [])).join('');
    expect(JSON.parse(args(0))).toEqual({ path: 'src/a.ts' });
    expect(JSON.parse(args(1))).toEqual({ command: 'ls -la' });
    expect(o.chunks.filter((c) => c.type === 'tool_call_args' && c.index === 1).length).toBeGreaterThan(3);
    // Every args chunk of an index comes after its start.
    for (const i of [0, 1]) {
      const start = o.chunks.findIndex((c) => c.type === 'tool_call_start' && c.index === i);
      const firstArgs = o.chunks.findIndex((c) => c.type === 'tool_call_args' && c.index === i);
      expect(start).toBeLessThan(firstArgs);
    }
    expect(o.chunks.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
  });
});

test('usage placed on the finish chunk itself is reported the same; finish reasons pass through', async () => {
  const script: Script = {
    responses: [
      {
        reply: {
          text: 'trunc',
          finish: 'length',
          usage: { promptTokens: 9, completionTokens: 3, cacheHitTokens: 4 },
        },
        chunking: { usage: 'finish' },
      },
      { reply: { text: 'x', finish: 'content_filter' }, chunking: { usage: 'none' } },
      { reply: { finish: 'insufficient_system_resource' } },
    ],
  };
  await withPlugin(script, async ({ plugin }) => {
    expect((await run(plugin)).chunks.at(-1)).toEqual({
      type: 'finish',
      reason: 'length',
      usage: { promptTokens: 9, completionTokens: 3, totalTokens: 12, reasoningTokens: 0, cachedTokens: 4 },
    });
    expect((await run(plugin)).chunks.at(-1)).toEqual({ type: 'finish', reason: 'content_filter' });
    expect((await run(plugin)).chunks.at(-1)).toMatchObject({
      type: 'finish',
      reason: 'insufficient_system_resource',
    });
  });
});

test('history goes out in the wire shape: reasoning_content only on tool-call turns, tools as functions, summaries in the system message', async () => {
  await withPlugin({ responses: [{ reply: { text: 'ok' } }] }, async ({ emu, plugin }) => {
    const request = makeRequest({
      messages: [
        { role: 'summary', content: 'The user asked for a refactor; files a.ts and b.ts were read.' },
        { role: 'user', content: 'list files' },
        {
          role: 'assistant',
          content: '',
          reasoning: 'I should run ls.',
          toolCalls: [{ id: 'call_7', name: 'bash', arguments: '{"command":"ls"}' }],
        },
        { role: 'tool', toolCallId: 'call_7', content: 'a.ts\nb.ts' },
        { role: 'assistant', content: 'Two files.', reasoning: 'Summarize.' },
        { role: 'user', content: 'thanks' },
      ],
      tools: [
        {
          name: 'bash',
          description: 'Run a command',
          parameters: { type: 'object', properties: { command: { type: 'string' } } },
        },
      ],
      params: { extra: { top_p: 0.9 } },
    });
    expect((await run(plugin, request)).error).toBeUndefined();
    const body = emu.requests[0]!.body as Record<string, unknown>;
    expect(body.messages).toEqual([
      {
        role: 'system',
        content: `You are a test agent.\n\n${SUMMARY_HEADING}\n\nThe user asked for a refactor; files a.ts and b.ts were read.`,
      },
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'I should run ls.',
        tool_calls: [
          { id: 'call_7', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_7', content: 'a.ts\nb.ts' },
      { role: 'assistant', content: 'Two files.' },
      { role: 'user', content: 'thanks' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'bash',
          description: 'Run a command',
          parameters: { type: 'object', properties: { command: { type: 'string' } } },
        },
      },
    ]);
    expect(body.top_p).toBe(0.9);
  });
});

test('option fallbacks fill what the request leaves unset, thinking included', async () => {
  await withPlugin(
    { responses: [{ reply: { text: 'ok' } }] },
    async ({ emu, plugin }) => {
      await run(plugin, makeRequest({ model: '', params: { temperature: 0.5 } }));
      expect(emu.requests[0]!.body).toMatchObject({
        model: 'fallback-model',
        temperature: 0.5,
        max_tokens: 99,
        thinking: { type: 'enabled' },
      });
    },
    { model: 'fallback-model', temperature: 1, maxTokens: 99, thinking: true },
  );
});

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
      { fail: { kind: 'cut', afterChunks: 4, reply: { text: 'alpha beta gamma delta epsilon' } } },
      { fail: { kind: 'cut', afterChunks: 3, graceful: true, reply: { text: 'alpha beta gamma delta' } } },
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
      { fail: { kind: 'malformed', afterChunks: 2, data: '{"choices":[{"delta":{"content":"x"' } },
      { fail: { kind: 'stream_error', afterChunks: 2, message: 'model overloaded, try again' } },
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
    expect(Date.now() - t0).toBeLessThan(2000);
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
            afterChunks: 3,
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
      expect(Date.now() - t0).toBeLessThan(2000);
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

test('without the API key no request is sent and the error names DEEPSEEK_API_KEY (reported at startup too)', async () => {
  await withPlugin(
    { responses: [{ reply: { text: 'x' } }] },
    async ({ emu, plugin, logs }) => {
      expect(logs.join('\n')).toContain('DEEPSEEK_API_KEY');
      const e = providerError(await run(plugin));
      expect(e.code).toBe('unauthorized');
      expect(e.message).toContain('DEEPSEEK_API_KEY');
      expect(emu.requests).toHaveLength(0);
    },
    {},
    {},
  );
});

test('apiKeyEnv names another variable; invalid options name the config key', async () => {
  await withPlugin(
    { responses: [{ reply: { text: 'x' } }] },
    async ({ plugin }) => {
      expect((await run(plugin)).error).toBeUndefined();
    },
    { apiKeyEnv: 'OTHER_KEY' },
    { OTHER_KEY: 'k2' },
  );
  expect(() =>
    createPlugin({ options: { baseUrl: 'not a url', maxRetries: -1 }, env: {}, log: () => {} }),
  ).toThrow(/llm\.options\.baseUrl[\s\S]*llm\.options\.maxRetries/);
  expect(() => createPlugin({ options: { retries: 3 }, env: {}, log: () => {} })).toThrow(/retries/);
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
