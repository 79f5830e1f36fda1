// Failure injection: HTTP errors with DeepSeek-style bodies, cut streams, malformed chunks, errors mid-stream, hangs.
import { expect, test } from '@playwright/test';
import type { Script } from './script.js';
import { type Emulator, startEmulator } from './server.js';
import { dataChunks, rawPost, sseEvents, sseJson } from './testing/raw-http.js';

const request = { model: 'test-model', stream: true, messages: [{ role: 'user', content: 'hello' }] };

async function withEmulator(script: Script, fn: (emu: Emulator) => Promise<void>): Promise<void> {
  const emu = await startEmulator({ script });
  try {
    await fn(emu);
  } finally {
    await emu.close();
  }
}

const statuses: [number, string][] = [
  [401, 'Authentication Fails'],
  [402, 'Insufficient Balance'],
  [422, 'Invalid Parameters'],
  [429, 'Rate Limit Reached'],
  [500, 'Server Error'],
  [503, 'Server Overloaded'],
];
for (const [status, message] of statuses) {
  test(`HTTP ${status} comes with a DeepSeek-style error body`, async () => {
    await withEmulator({ responses: [{ fail: { kind: 'http', status } }] }, async (emu) => {
      const res = await rawPost(`${emu.url}/chat/completions`, request);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json');
      const body = JSON.parse(res.text);
      expect(Object.keys(body.error)).toEqual(['message', 'type', 'param', 'code']);
      expect(body.error.message).toContain(message);
      expect(body.error.param).toBeNull();
      expect(emu.requests[0]).toMatchObject({ served: 'fail:http', entry: 0 });
    });
  });
}

test('an HTTP failure takes a custom message, type, code and retry-after-ms', async () => {
  const script: Script = {
    responses: [
      { fail: { kind: 'http', status: 429, message: 'slow down', type: 't', code: null, retryAfterMs: 7 } },
    ],
  };
  await withEmulator(script, async (emu) => {
    const res = await rawPost(`${emu.url}/chat/completions`, request);
    expect(JSON.parse(res.text)).toEqual({
      error: { message: 'slow down', type: 't', param: null, code: null },
    });
    expect(res.headers.get('retry-after-ms')).toBe('7');
  });
});

test('a cut stream delivers the opening chunk and N pieces, then the connection dies without [DONE]', async () => {
  await withEmulator(
    { responses: [{ fail: { kind: 'cut', afterChunks: 3, reply: { text: 'one two three four five' } } }] },
    async (emu) => {
      const res = await rawPost(`${emu.url}/chat/completions`, request);
      expect(res.status).toBe(200);
      expect(res.error).toBeDefined();
      expect(dataChunks(res.text).map((c) => c.choices[0]!.delta.content)).toEqual([
        '',
        'one',
        ' two',
        ' three',
      ]);
      expect(res.text).not.toContain('[DONE]');
      expect(emu.requests[0]!.closed).toBe('server');
    },
  );
});

test('a graceful cut ends the body cleanly after N pieces, with no finish_reason and no [DONE]', async () => {
  await withEmulator(
    { responses: [{ fail: { kind: 'cut', afterChunks: 2, graceful: true } }] },
    async (emu) => {
      const res = await rawPost(`${emu.url}/chat/completions`, request);
      expect(res.error).toBeUndefined();
      const chunks = dataChunks(res.text);
      expect(chunks).toHaveLength(3);
      expect(chunks.every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
      expect(res.text).not.toContain('[DONE]');
    },
  );
});

test('a malformed chunk is a data line that is not JSON after N pieces', async () => {
  await withEmulator(
    {
      responses: [
        { fail: { kind: 'malformed', afterChunks: 2 } },
        { fail: { kind: 'malformed', afterChunks: 0, data: '{oops' } },
      ],
    },
    async (emu) => {
      const events = sseEvents((await rawPost(`${emu.url}/chat/completions`, request)).text).filter(
        (e) => !('comment' in e),
      );
      expect(events).toHaveLength(4);
      expect('raw' in events[3]! && events[3].raw.startsWith('{"id":"chatcmpl-emu-0"')).toBe(true);
      const second = sseEvents((await rawPost(`${emu.url}/chat/completions`, request)).text).filter(
        (e) => !('comment' in e),
      );
      // No piece: the opening chunk (the role, no text), then the bad line.
      expect(second).toHaveLength(2);
      expect(second[1]).toEqual({ raw: '{oops' });
    },
  );
});

test('an error object mid-stream follows N pieces', async () => {
  await withEmulator(
    { responses: [{ fail: { kind: 'stream_error', afterChunks: 1, message: 'overloaded mid-way' } }] },
    async (emu) => {
      const chunks = dataChunks((await rawPost(`${emu.url}/chat/completions`, request)).text);
      expect(chunks).toHaveLength(3);
      expect(chunks[2]).toEqual({
        error: { message: 'overloaded mid-way', type: 'server_error', param: null, code: 'internal_error' },
      });
    },
  );
});

test('a hang sends no byte, not even headers, until the client disconnects', async () => {
  await withEmulator({ responses: [{ fail: { kind: 'hang' } }] }, async (emu) => {
    const abort = new AbortController();
    const pending = rawPost(`${emu.url}/chat/completions`, request, { signal: abort.signal });
    await emu.waitForRequests(1);
    expect(emu.requests[0]!.closed).toBeUndefined();
    abort.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    await emu.waitFor(() => emu.requests[0]!.closed === 'client', 'the client to disconnect');
  });
});

test('a hang after N pieces streams the prefix and then stays silent', async () => {
  await withEmulator(
    { responses: [{ fail: { kind: 'hang', afterChunks: 2, chunking: { keepAliveEvery: 0 } } }] },
    async (emu) => {
      const abort = new AbortController();
      const res = await fetch(`${emu.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify(request),
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (dataChunks(text).length < 3)
        text += decoder.decode((await reader.read()).value, { stream: true });
      expect(dataChunks(text)).toHaveLength(3);
      abort.abort();
      await emu.waitFor(() => emu.requests[0]!.closed === 'client', 'the client to disconnect');
    },
  );
});

test('close() ends a hung response instead of waiting for it', async () => {
  const emu = await startEmulator({ script: { responses: [{ fail: { kind: 'hang' } }] } });
  const pending = rawPost(`${emu.url}/chat/completions`, request).catch((e: Error) => e);
  await emu.waitForRequests(1);
  await emu.close();
  expect(await pending).toBeInstanceOf(Error);
});

/** Each format's route, a streamed request on it, and the pieces of text and of tool arguments it streamed. */
const STREAMS: Array<{
  format: string;
  path: string;
  body: Record<string, unknown>;
  pieces: (sse: string) => { text: string[]; args: string[] };
}> = [
  {
    format: 'openai-chat',
    path: '/chat/completions',
    body: request,
    pieces: (sse) => {
      const deltas = dataChunks(sse).map((c) => c.choices?.[0]?.delta);
      return {
        text: deltas.flatMap((d) => (d?.content ? [d.content] : [])),
        args: deltas.flatMap((d) => d?.tool_calls?.flatMap((t) => t.function.arguments || []) ?? []),
      };
    },
  },
  {
    format: 'openai-responses',
    path: '/v1/responses',
    body: { model: 'm', stream: true, input: 'hello' },
    pieces: (sse) => {
      const events = sseJson<{ type: string; delta?: string }>(sse).map((e) => e.data);
      const of = (type: string) => events.flatMap((e) => (e.type === type ? [e.delta!] : []));
      return {
        text: of('response.output_text.delta'),
        args: of('response.function_call_arguments.delta'),
      };
    },
  },
  {
    format: 'anthropic-messages',
    path: '/v1/messages',
    body: { model: 'm', stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] },
    pieces: (sse) => {
      const deltas = sseJson<{ delta?: { text?: string; partial_json?: string } }>(sse).map(
        (e) => e.data.delta,
      );
      return {
        text: deltas.flatMap((d) => (d?.text ? [d.text] : [])),
        args: deltas.flatMap((d) => (d?.partial_json ? [d.partial_json] : [])),
      };
    },
  },
  {
    format: 'gemini',
    path: '/v1beta/models/g:streamGenerateContent?alt=sse',
    body: { contents: [{ role: 'user', parts: [{ text: 'hello' }] }] },
    pieces: (sse) => {
      const parts = sseJson<{
        candidates: { content: { parts: { text?: string; functionCall?: unknown }[] } }[];
      }>(sse).flatMap((e) => e.data.candidates?.[0]?.content.parts ?? []);
      return {
        text: parts.flatMap((p) => (p.text ? [p.text] : [])),
        args: parts.flatMap((p) => (p.functionCall ? [JSON.stringify(p.functionCall)] : [])),
      };
    },
  },
];

for (const s of STREAMS) {
  test(`${s.format}: afterChunks counts pieces of text and of tool arguments, as in every format`, async () => {
    const reply = {
      text: 'alpha beta gamma delta',
      toolCalls: [{ name: 'write_file', arguments: { path: '/tmp/x/notes.txt', content: 'milk 🥛' } }],
    };
    await withEmulator(
      {
        responses: [
          { fail: { kind: 'cut', graceful: true, afterChunks: 2, reply } },
          { fail: { kind: 'cut', graceful: true, afterChunks: 5, reply } },
          { fail: { kind: 'stream_error', afterChunks: 0, reply } },
        ],
      },
      async (emu) => {
        const post = async () => s.pieces((await rawPost(`${emu.url}${s.path}`, s.body)).text);
        // Two pieces of text (of 6 characters at most, words whole): what a cancel test waits for.
        expect(await post()).toEqual({ text: ['alpha', ' beta'], args: [] });
        // The four pieces of text, then the first piece of the call's arguments (Gemini's call is one piece).
        const five = await post();
        expect(five.text).toEqual(['alpha', ' beta', ' gamma', ' delta']);
        expect(five.args).toHaveLength(1);
        expect(await post()).toEqual({ text: [], args: [] });
      },
    );
  });
}
