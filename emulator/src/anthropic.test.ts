// Anthropic Messages, read with fetch and a spec-conforming SSE parser (no Anthropic SDK is installed here).
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${name}` in plain strings is the script syntax under test.
import { expect, test } from '@playwright/test';
import type { Script } from './script.js';
import { type Emulator, startEmulator } from './server.js';
import { rawPost, sseJson } from './testing/raw-http.js';

const TEXT = 'Fixed 🐛→✅ in /home/user/项目/src/主要.ts — 完了しました';
const ARGS = { file_path: '/home/user/项目/src/主要.ts', old_string: 'バグ', new_string: '修正' };
const request = (over: Record<string, unknown> = {}) => ({
  model: 'claude-emu',
  max_tokens: 1024,
  stream: true,
  system: [{ type: 'text', text: 'Working directory: /home/user/项目' }],
  messages: [{ role: 'user', content: 'fix it' }],
  ...over,
});
const headers = { 'x-api-key': 'sk-ant-secret', 'anthropic-version': '2023-06-01' };

async function withEmulator(script: Script, fn: (emu: Emulator) => Promise<void>) {
  const emu = await startEmulator({ script });
  try {
    await fn(emu);
  } finally {
    await emu.close();
  }
}

type Ev = { type: string; index?: number; delta?: Record<string, string>; [k: string]: unknown };

test('HEAD / and HEAD /v1 answer 200 (the client preflight) and consume no response', async () => {
  await withEmulator({ responses: [] }, async (emu) => {
    for (const path of ['/', '/v1'])
      expect((await fetch(`${emu.url}${path}`, { method: 'HEAD' })).status).toBe(200);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.served}`)).toEqual([
      'HEAD / preflight',
      'HEAD /v1 preflight',
    ]);
    expect(emu.served).toBe(0);
  });
});

test('a streamed reply: message_start, thinking, text and tool_use blocks with their deltas, message_delta, message_stop', async () => {
  const script: Script = {
    responses: [
      {
        reply: {
          reasoning: 'バグを探す。',
          text: TEXT,
          toolCalls: [{ name: 'Edit', arguments: ARGS }],
          usage: { promptTokens: 100, completionTokens: 30, cacheHitTokens: 40 },
        },
        chunking: { textPieceChars: 4, argsPieceChars: 9 },
      },
    ],
  };
  await withEmulator(script, async (emu) => {
    const res = await rawPost(`${emu.url}/v1/messages?beta=true`, request(), { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = sseJson<Ev>(res.text);
    for (const e of events) expect(e.event).toBe(e.data.type);
    const names = events.map((e) => e.event).filter((n) => n !== 'content_block_delta');
    expect(names).toEqual([
      'message_start',
      'ping',
      ...['content_block_start', 'content_block_stop'],
      ...['content_block_start', 'content_block_stop'],
      ...['content_block_start', 'content_block_stop'],
      'message_delta',
      'message_stop',
    ]);
    const start = events[0]!.data.message as Record<string, unknown>;
    expect(start).toMatchObject({ id: 'msg_emu_0', role: 'assistant', model: 'claude-emu', content: [] });
    expect(start.usage).toEqual({
      input_tokens: 60,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 40,
      output_tokens: 1,
    });
    const blocks = events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block);
    expect(blocks).toEqual([
      { type: 'thinking', thinking: '', signature: '' },
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'toolu_emu_0', name: 'Edit', input: {} },
    ]);
    const deltas = (index: number) => events.filter((e) => e.data.index === index && e.data.delta);
    const joined = (index: number, field: string) =>
      deltas(index)
        .map((e) => e.data.delta![field] ?? '')
        .join('');
    expect(joined(0, 'thinking')).toBe('バグを探す。');
    expect(deltas(0).at(-1)!.data.delta).toEqual({ type: 'signature_delta', signature: 'emu-signature-0' });
    const textDeltas = deltas(1).map((e) => e.data.delta!);
    expect(textDeltas.every((d) => d.type === 'text_delta' && d.text!.isWellFormed())).toBe(true);
    expect(textDeltas.length).toBeGreaterThan(10);
    expect(joined(1, 'text')).toBe(TEXT);
    const json = deltas(2).map((e) => e.data.delta!);
    expect(json[0]).toEqual({ type: 'input_json_delta', partial_json: '' });
    expect(json.length).toBeGreaterThan(4);
    expect(JSON.parse(joined(2, 'partial_json'))).toEqual(ARGS);
    expect(events.at(-2)!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 30 },
    });
    expect(emu.requests[0]).toMatchObject({ path: '/v1/messages', format: 'anthropic-messages' });
    expect(emu.requests[0]!.headers['x-api-key']).toBe('[redacted]');
  });
});

test('a non-streamed reply is one message with every block; stop reasons follow the finish', async () => {
  const script: Script = {
    responses: [
      {
        reply: { reasoning: 'r', text: TEXT, toolCalls: [{ name: 'Edit', arguments: ARGS, id: 'toolu_x' }] },
      },
      { reply: { text: 'cut', finish: 'length' } },
    ],
  };
  await withEmulator(script, async (emu) => {
    const r = JSON.parse((await rawPost(`${emu.url}/v1/messages`, request({ stream: false }))).text);
    expect(r).toMatchObject({
      id: 'msg_emu_0',
      type: 'message',
      stop_reason: 'tool_use',
      content: [
        { type: 'thinking', thinking: 'r', signature: 'emu-signature-0' },
        { type: 'text', text: TEXT },
        { type: 'tool_use', id: 'toolu_x', name: 'Edit', input: ARGS },
      ],
    });
    const cut = JSON.parse((await rawPost(`${emu.url}/v1/messages`, request({ stream: false }))).text);
    expect(cut.stop_reason).toBe('max_tokens');
  });
});

test("failures in Anthropic's shapes: an HTTP error body by status, an error event mid-stream", async () => {
  const script: Script = {
    responses: [
      { fail: { kind: 'http', status: 429, retryAfterMs: 5 } },
      { fail: { kind: 'http', status: 529 } },
      { fail: { kind: 'stream_error', afterChunks: 1 } },
    ],
  };
  await withEmulator(script, async (emu) => {
    const limited = await rawPost(`${emu.url}/v1/messages`, request());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after-ms')).toBe('5');
    expect(JSON.parse(limited.text)).toEqual({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'Number of request tokens has exceeded your per-minute rate limit.',
      },
    });
    const overloaded = await rawPost(`${emu.url}/v1/messages`, request());
    expect(JSON.parse(overloaded.text).error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
    const mid = sseJson<Ev>((await rawPost(`${emu.url}/v1/messages`, request())).text);
    expect(mid.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'error',
    ]);
    expect(mid.at(-1)!.data).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });
});

test('vars read the system blocks and tool_result blocks of a Messages request', async () => {
  const script: Script = {
    vars: {
      cwd: { from: 'system', pattern: 'Working directory: (\\S+)' },
      out: { from: 'tool', pattern: 'wrote (\\S+)' },
    },
    responses: [{ reply: { text: 'cwd=${cwd} out=${out}' } }],
  };
  await withEmulator(script, async (emu) => {
    const body = request({
      stream: false,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'text', text: 'wrote /tmp/出力.txt' }],
            },
          ],
        },
      ],
    });
    const r = JSON.parse((await rawPost(`${emu.url}/v1/messages`, body)).text);
    expect(r.content[0].text).toBe('cwd=/home/user/项目 out=/tmp/出力.txt');
  });
});
