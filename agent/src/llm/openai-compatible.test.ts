// The OpenAI-compatible plugin against the real model emulator, in-process: streams, request shape, options.

import type { Script } from '@acp-snapshot/emulator';
import { expect, test } from '@playwright/test';
import { createPlugin } from './openai-compatible.js';
import { SUMMARY_HEADING } from './openai-messages.js';
import { MODEL, makeRequest, providerError, run, texts, withPlugin } from './openai-testing.js';

test('a text reply (keep-alives between all chunks) streams text chunks, then one finish with usage; the request is a streaming chat completion', async () => {
  await withPlugin(
    {
      responses: [
        {
          reply: { text: 'Hello there, friend.', usage: { promptTokens: 42, completionTokens: 5 } },
          // A `: keep-alive` comment after every data chunk: the stream must read straight through them.
          chunking: { keepAliveEvery: 1 },
        },
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
