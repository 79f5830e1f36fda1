// OpenAI Responses (and Chat, for contrast) through the official openai SDK: what a real client reads.
import { expect, test } from '@playwright/test';
import OpenAI from 'openai';
import type { Script } from './script.js';
import { type Emulator, startEmulator } from './server.js';
import { rawPost, sseJson } from './testing/raw-http.js';

/** Emoji (a ZWJ family is 5 code points) and CJK with no spaces, long enough to be cut mid-run. */
const TEXT = 'Done 👨‍👩‍👧 已修改文件：/home/user/项目/src/主要.ts ✅';
const ARGS = { path: '/home/user/项目/src/主要.ts', content: 'export const 名前 = "値";\n' };

async function withEmulator(script: Script, fn: (emu: Emulator, client: OpenAI) => Promise<void>) {
  const emu = await startEmulator({ script });
  const client = new OpenAI({ baseURL: `${emu.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
  try {
    await fn(emu, client);
  } finally {
    await emu.close();
  }
}

type Event = { type: string; sequence_number: number; delta?: string; [k: string]: unknown };

test('a streamed Responses reply: created, reasoning summary, output_text deltas, a function_call item, completed', async () => {
  const script: Script = {
    responses: [
      {
        reply: {
          reasoning: '先看看文件。',
          text: TEXT,
          toolCalls: [{ name: 'write_file', arguments: ARGS }],
          usage: { promptTokens: 50, completionTokens: 20, reasoningTokens: 4, cacheHitTokens: 10 },
        },
        chunking: { textPieceChars: 3, argsPieceChars: 7 },
      },
    ],
  };
  await withEmulator(script, async (emu, client) => {
    const stream = await client.responses.create({ model: 'gpt-emu', input: 'edit it', stream: true });
    const events: Event[] = [];
    for await (const e of stream) events.push(e as unknown as Event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = (type: string) => events.filter((e) => e.type === type).map((e) => e.delta!);
    const textDeltas = deltas('response.output_text.delta');
    expect(textDeltas.join('')).toBe(TEXT);
    expect(textDeltas.length).toBeGreaterThan(10);
    // The CJK run and the ZWJ family are cut between deltas, never inside a code point.
    expect(textDeltas.slice(0, 6)).toEqual(['Don', 'e', ' 👨‍', '👩‍👧', ' 已修', '改文件']);
    for (const d of textDeltas) expect(d.isWellFormed()).toBe(true);
    expect(deltas('response.reasoning_summary_text.delta').join('')).toBe('先看看文件。');
    const args = deltas('response.function_call_arguments.delta');
    expect(args.length).toBeGreaterThan(3);
    expect(JSON.parse(args.join(''))).toEqual(ARGS);

    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item);
    expect(added).toEqual([
      { id: 'rs_emu_0_0', type: 'reasoning', summary: [] },
      { id: 'msg_emu_0_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      {
        id: 'fc_emu_0_2',
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: 'call_0',
        name: 'write_file',
      },
    ]);
    const done = events.at(-1)!.response as OpenAI.Responses.Response;
    expect(done).toMatchObject({
      id: 'resp_emu_0',
      status: 'completed',
      model: 'gpt-emu',
      created_at: 1735689600,
    });
    expect(done.output.map((o) => o.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(done.usage).toEqual({
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 10 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 4 },
      total_tokens: 70,
    });
    expect(emu.requests[0]).toMatchObject({
      path: '/v1/responses',
      format: 'openai-responses',
      served: 'reply',
    });
  });
});

test('a custom tool call (codex `exec`): a custom_tool_call item whose free-form input streams in input deltas', async () => {
  const js = 'const r = await tools.mcp__notes__search({ query: "牛奶 🥛" });\ntext(r);';
  const script: Script = {
    responses: [
      {
        reply: { toolCalls: [{ name: 'exec', custom: true, arguments: js }] },
        chunking: { argsPieceChars: 9 },
      },
    ],
  };
  await withEmulator(script, async (_emu, client) => {
    const stream = await client.responses.create({ model: 'gpt-emu', input: 'search', stream: true });
    const events: Event[] = [];
    for await (const e of stream) events.push(e as unknown as Event);
    const deltas = events
      .filter((e) => e.type === 'response.custom_tool_call_input.delta')
      .map((e) => e.delta!);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(js);
    for (const d of deltas) expect(d.isWellFormed()).toBe(true);
    expect(events.find((e) => e.type === 'response.custom_tool_call_input.done')).toMatchObject({
      input: js,
    });
    expect(events.find((e) => e.type === 'response.output_item.added')?.item).toEqual({
      id: 'ctc_emu_0_0',
      type: 'custom_tool_call',
      status: 'in_progress',
      input: '',
      call_id: 'call_0',
      name: 'exec',
    });
    const done = events.at(-1)!.response as OpenAI.Responses.Response;
    expect(done.output).toEqual([
      {
        id: 'ctc_emu_0_0',
        type: 'custom_tool_call',
        status: 'completed',
        input: js,
        call_id: 'call_0',
        name: 'exec',
      },
    ]);
  });
});

test('a non-streamed Responses reply is one response object; the SDK joins output_text; /responses works too', async () => {
  const script: Script = {
    responses: [{ reply: { text: TEXT } }, { reply: { text: 'cut', finish: 'length' } }],
  };
  await withEmulator(script, async (emu, client) => {
    const r = await client.responses.create({ model: 'gpt-emu', input: [{ role: 'user', content: 'hi' }] });
    expect(r.output_text).toBe(TEXT);
    expect(r.status).toBe('completed');
    const short = await new OpenAI({ baseURL: emu.url, apiKey: 'k', maxRetries: 0 }).responses.create({
      model: 'gpt-emu',
      input: 'hi',
    });
    expect(short).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    expect(emu.requests.map((q) => q.path)).toEqual(['/v1/responses', '/responses']);
  });
});

test('Responses failures: an HTTP error is the SDK error of that status; a mid-stream error is an error event', async () => {
  const script: Script = {
    responses: [
      { fail: { kind: 'http', status: 429, message: 'slow down' } },
      { fail: { kind: 'stream_error', afterChunks: 1, code: 'server_error', message: 'overloaded mid-way' } },
    ],
  };
  await withEmulator(script, async (emu, client) => {
    const e = await client.responses.create({ model: 'm', input: 'hi' }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(OpenAI.RateLimitError);
    expect((e as InstanceType<typeof OpenAI.RateLimitError>).message).toContain('slow down');
    const raw = await rawPost(`${emu.url}/v1/responses`, { model: 'm', input: 'hi', stream: true });
    const events = sseJson<Event>(raw.text);
    expect(events.map((x) => x.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'error',
    ]);
    expect(events[5]!.data).toEqual({
      type: 'error',
      sequence_number: 5,
      code: 'server_error',
      message: 'overloaded mid-way',
      param: null,
    });
  });
});

test('chat through the SDK: emoji and CJK deltas join to the text, and tool arguments to the object', async () => {
  const script: Script = {
    responses: [{ reply: { text: TEXT, toolCalls: [{ name: 'write_file', arguments: ARGS }] } }],
  };
  await withEmulator(script, async (_emu, client) => {
    const stream = await client.chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    let args = '';
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      args += c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    }
    expect(text).toBe(TEXT);
    expect(JSON.parse(args)).toEqual(ARGS);
  });
});
