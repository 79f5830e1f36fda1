// The emulator's successful responses: DeepSeek's stream shape, byte for byte where it matters.
import { expect, test } from '@playwright/test';
import type { Script } from './script.js';
import { type Emulator, startEmulator } from './server.js';
import { type ChunkView, dataChunks, rawPost, sseEvents } from './testing/raw-http.js';

const request = (over: Record<string, unknown> = {}) => ({
  model: 'test-model',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'hello' }],
  ...over,
});

async function withEmulator(script: Script, fn: (emu: Emulator) => Promise<void>): Promise<void> {
  const emu = await startEmulator({ script });
  try {
    await fn(emu);
  } finally {
    await emu.close();
  }
}

const contentOf = (chunks: ChunkView[], field: 'content' | 'reasoning_content') =>
  chunks.map((c) => c.choices[0]?.delta?.[field] ?? '').join('');

test('a text reply streams role, small content deltas, finish, a usage chunk with empty choices, then [DONE]', async () => {
  await withEmulator(
    { responses: [{ reply: { text: 'Hello there, how are you doing today?' } }] },
    async (emu) => {
      const res = await rawPost(`${emu.url}/chat/completions`, request());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const events = sseEvents(res.text);
      expect(events[0]).toEqual({ comment: 'keep-alive' });
      expect(events.at(-1)).toEqual({ done: true });
      expect(events.filter((e) => 'comment' in e).length).toBeGreaterThan(1);
      const chunks = dataChunks(res.text);
      for (const c of chunks) {
        expect(c).toMatchObject({
          id: 'chatcmpl-emu-0',
          object: 'chat.completion.chunk',
          created: 1735689600,
          model: 'test-model',
        });
      }
      expect(chunks[0]!.choices[0]).toEqual({
        index: 0,
        delta: { role: 'assistant', content: '' },
        logprobs: null,
        finish_reason: null,
      });
      expect(contentOf(chunks, 'content')).toBe('Hello there, how are you doing today?');
      const deltas = chunks.slice(1, -2).map((c) => c.choices[0]!.delta.content as string);
      expect(deltas.length).toBeGreaterThan(5);
      expect(Math.max(...deltas.map((d) => d.length))).toBeLessThanOrEqual(6);
      const finish = chunks.at(-2)!;
      expect(finish.choices[0]!.finish_reason).toBe('stop');
      expect(finish.usage).toBeUndefined();
      const usage = chunks.at(-1)!;
      expect(usage.choices).toEqual([]);
      expect(usage.usage).toEqual({
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: usage.usage!.prompt_tokens + usage.usage!.completion_tokens,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: usage.usage!.prompt_tokens,
      });
    },
  );
});

test('a thinking reply streams reasoning_content before content, and scripted usage is reported as given', async () => {
  const script: Script = {
    responses: [
      {
        reply: {
          reasoning: 'The user greets me.',
          text: 'Hi!',
          usage: { promptTokens: 100, completionTokens: 20, reasoningTokens: 12, cacheHitTokens: 64 },
        },
        chunking: { usage: 'finish', keepAliveEvery: 0 },
      },
    ],
  };
  await withEmulator(script, async (emu) => {
    const res = await rawPost(`${emu.url}/v1/chat/completions`, request());
    expect(res.text).not.toContain(': keep-alive');
    const chunks = dataChunks(res.text);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: null, reasoning_content: '' });
    expect(contentOf(chunks, 'reasoning_content')).toBe('The user greets me.');
    expect(contentOf(chunks, 'content')).toBe('Hi!');
    const firstText = chunks.findIndex((c) => c.choices[0]?.delta?.content);
    const lastReasoning = chunks.findLastIndex((c) => c.choices[0]?.delta?.reasoning_content);
    expect(lastReasoning).toBeLessThan(firstText);
    // usage: 'finish' puts usage on the finish chunk (no separate usage chunk).
    const last = chunks.at(-1)!;
    expect(last.choices[0]!.finish_reason).toBe('stop');
    expect(last.usage).toEqual({
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
      prompt_tokens_details: { cached_tokens: 64 },
      completion_tokens_details: { reasoning_tokens: 12 },
      prompt_cache_hit_tokens: 64,
      prompt_cache_miss_tokens: 36,
    });
  });
});

test('tool calls stream by index: id, type and name on the first delta, argument pieces after; ids count across responses', async () => {
  const script: Script = {
    responses: [
      {
        reply: {
          toolCalls: [
            { name: 'read_file', arguments: { path: 'src/index.ts' } },
            { name: 'bash', arguments: '{"command":"ls -la"}' },
          ],
        },
        chunking: { argsPieceChars: 5 },
      },
      {
        reply: {
          toolCalls: [
            { name: 'grep', arguments: {} },
            { name: 'glob', arguments: {}, id: 'custom-id' },
          ],
        },
      },
    ],
  };
  await withEmulator(script, async (emu) => {
    const chunks = dataChunks((await rawPost(`${emu.url}/chat/completions`, request())).text);
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'call_0',
      type: 'function',
      function: { name: 'read_file', arguments: '' },
    });
    const secondStart = toolDeltas.findIndex((d) => d.index === 1);
    expect(toolDeltas[secondStart]).toEqual({
      index: 1,
      id: 'call_1',
      type: 'function',
      function: { name: 'bash', arguments: '' },
    });
    const args = (i: number) =>
      toolDeltas
        .filter((d) => d.index === i)
        .map((d) => d.function.arguments)
        .join('');
    expect(JSON.parse(args(0))).toEqual({ path: 'src/index.ts' });
    expect(args(1)).toBe('{"command":"ls -la"}');
    for (const d of toolDeltas.filter((d) => !d.id))
      expect(d.function.arguments.length).toBeLessThanOrEqual(5);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');

    const second = dataChunks((await rawPost(`${emu.url}/chat/completions`, request())).text);
    const ids = second
      .flatMap((c) => c.choices[0]?.delta?.tool_calls ?? [])
      .flatMap((d: { id?: string }) => (d.id ? [d.id] : []));
    expect(ids).toEqual(['call_2', 'custom-id']);
    expect(second[0]!.id).toBe('chatcmpl-emu-1');
    expect(second[0]!.created).toBe(1735689601);
  });
});

test('interleaved parallel tool calls alternate argument pieces between indices', async () => {
  const script: Script = {
    responses: [
      {
        reply: {
          toolCalls: [
            { name: 'a', arguments: '{"x":"1234567890"}' },
            { name: 'b', arguments: '{"y":"abcdefghij"}' },
          ],
        },
        chunking: { interleaveToolCalls: true, argsPieceChars: 4 },
      },
    ],
  };
  await withEmulator(script, async (emu) => {
    const deltas = dataChunks((await rawPost(`${emu.url}/chat/completions`, request())).text).flatMap(
      (c) => c.choices[0]?.delta?.tool_calls ?? [],
    );
    expect(deltas.slice(0, 6).map((d) => d.index)).toEqual([0, 1, 0, 1, 0, 1]);
    expect(
      deltas
        .filter((d) => d.index === 1)
        .map((d) => d.function.arguments)
        .join(''),
    ).toBe('{"y":"abcdefghij"}');
  });
});

test('the same script gives the same bytes every time, and a finish override is honoured', async () => {
  const script: Script = {
    responses: [{ reply: { reasoning: 'r', text: 'cut short here', finish: 'length' } }],
  };
  const texts: string[] = [];
  for (let i = 0; i < 2; i++) {
    await withEmulator(script, async (emu) => {
      texts.push((await rawPost(`${emu.url}/chat/completions`, request())).text);
    });
  }
  expect(texts[0]).toBe(texts[1]);
  expect(dataChunks(texts[0]!).at(-2)!.choices[0]!.finish_reason).toBe('length');
});

test('a non-streaming request gets one chat.completion with the whole message', async () => {
  const script: Script = {
    responses: [
      { reply: { reasoning: 'think', text: 'done', toolCalls: [{ name: 'x', arguments: { a: 1 } }] } },
    ],
  };
  await withEmulator(script, async (emu) => {
    const res = await rawPost(`${emu.url}/chat/completions`, request({ stream: false }));
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(res.text);
    expect(body).toMatchObject({
      id: 'chatcmpl-emu-0',
      object: 'chat.completion',
      model: 'test-model',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'done',
            reasoning_content: 'think',
            tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'x', arguments: '{"a":1}' } }],
          },
        },
      ],
    });
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });
});

test('the request log keeps method, path, headers without the key, and the parsed body', async () => {
  await withEmulator({ responses: [{ reply: { text: 'a' } }] }, async (emu) => {
    expect(emu.requests).toEqual([]);
    await rawPost(`${emu.url}/chat/completions`, request(), {
      // Every credential header of core's table goes, not only the one this client sends its key in.
      headers: {
        authorization: 'Bearer sk-secret-123',
        'api-key': 'sk-secret-456',
        cookie: 'session=sk-secret-789',
      },
    });
    expect(emu.requests).toHaveLength(1);
    const r = emu.requests[0]!;
    expect(r).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/chat/completions',
      entry: 0,
      served: 'reply',
    });
    expect(r.headers.authorization).toBe('Bearer [redacted]');
    expect(r.headers['api-key']).toBe('[redacted]');
    expect(r.headers.cookie).toBe('[redacted]');
    expect(JSON.stringify(r)).not.toMatch(/sk-secret/);
    expect(r.body).toEqual(request());
    await emu.waitFor(() => r.closed === 'finished', 'the response to finish');
  });
});

test('an exhausted script answers 400 naming the script and the count; unknown routes and bad JSON consume nothing', async () => {
  await withEmulator({ responses: [{ reply: { text: 'only one' } }] }, async (emu) => {
    const notFound = await rawPost(`${emu.url}/completions`, request());
    expect(notFound.status).toBe(404);
    expect(JSON.parse(notFound.text).error.message).toContain('POST /chat/completions');
    const badJson = await rawPost(`${emu.url}/chat/completions`, '{not json');
    expect(badJson.status).toBe(400);
    expect(emu.requests[1]).toMatchObject({ served: 'bad_json', bodyText: '{not json' });
    expect((await rawPost(`${emu.url}/chat/completions`, request())).status).toBe(200);
    const exhausted = await rawPost(`${emu.url}/chat/completions`, request());
    expect(exhausted.status).toBe(400);
    const body = JSON.parse(exhausted.text);
    expect(body.error).toEqual({
      message:
        'emulator: script exhausted: request #3 asked for response 1, but <inline script> has 1 response(s); add a response to the script',
      type: 'emulator_script_exhausted',
      param: null,
      code: 'script_exhausted',
    });
    expect(emu.served).toBe(1);
  });
});
