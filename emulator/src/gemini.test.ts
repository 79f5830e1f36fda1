// Gemini generateContent / streamGenerateContent, read with fetch and a spec-conforming SSE parser.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${name}` in plain strings is the script syntax under test.
import { expect, test } from '@playwright/test';
import type { Script } from './script.js';
import { type Emulator, startEmulator } from './server.js';
import { rawPost, sseJson, sseMessages } from './testing/raw-http.js';

const TEXT = 'Listo 🎉 — 我已经更新了 /home/user/项目/README.md のリンク';
const ARGS = { absolute_path: '/home/user/项目/README.md' };
const MODEL = 'gemini-emu-flash';
const body = {
  systemInstruction: { parts: [{ text: 'Working directory: /home/user/项目' }] },
  contents: [{ role: 'user', parts: [{ text: 'update the readme' }] }],
};
const url = (emu: Emulator, method: string, query = '') =>
  `${emu.url}/v1beta/models/${MODEL}:${method}${query}`;

async function withEmulator(script: Script, fn: (emu: Emulator) => Promise<void>) {
  const emu = await startEmulator({ script });
  try {
    await fn(emu);
  } finally {
    await emu.close();
  }
}

type Part = { text?: string; thought?: boolean; functionCall?: { name: string; args: unknown } };
type Chunk = {
  candidates: { content: { parts: Part[]; role: string }; finishReason?: string; index: number }[];
  usageMetadata?: Record<string, number>;
  modelVersion: string;
  responseId: string;
};

test('streamGenerateContent?alt=sse: one part per chunk (thoughts, text, functionCall); finish and usage on the last', async () => {
  const script: Script = {
    responses: [
      {
        reply: {
          reasoning: '先读文件。',
          text: TEXT,
          toolCalls: [{ name: 'read_file', arguments: ARGS }],
          usage: { promptTokens: 80, completionTokens: 25, reasoningTokens: 5, cacheHitTokens: 16 },
        },
        chunking: { textPieceChars: 4 },
      },
    ],
  };
  await withEmulator(script, async (emu) => {
    const res = await rawPost(url(emu, 'streamGenerateContent', '?alt=sse'), body, {
      headers: { 'x-goog-api-key': 'AIza-secret' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^data: \{.*\}\r\n\r\n/);
    expect(sseMessages(res.text).every((m) => m.event === undefined)).toBe(true);
    const chunks = sseJson<Chunk>(res.text).map((e) => e.data);
    for (const c of chunks) {
      expect(c).toMatchObject({ modelVersion: MODEL, responseId: 'emu-0' });
      expect(c.candidates[0]!.content.parts).toHaveLength(1);
      expect(c.candidates[0]!.content.role).toBe('model');
    }
    const parts = chunks.map((c) => c.candidates[0]!.content.parts[0]!);
    const texts = parts.filter((p) => p.text !== undefined && !p.thought).map((p) => p.text!);
    expect(texts.length).toBeGreaterThan(8);
    expect(texts.every((t) => t.isWellFormed())).toBe(true);
    expect(texts.join('')).toBe(TEXT);
    expect(
      parts
        .filter((p) => p.thought)
        .map((p) => p.text)
        .join(''),
    ).toBe('先读文件。');
    expect(parts.at(-1)).toEqual({ functionCall: { name: 'read_file', args: ARGS } });
    expect(chunks.slice(0, -1).every((c) => !c.usageMetadata && !c.candidates[0]!.finishReason)).toBe(true);
    expect(chunks.at(-1)!.candidates[0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toEqual({
      promptTokenCount: 80,
      candidatesTokenCount: 20,
      totalTokenCount: 105,
      cachedContentTokenCount: 16,
      thoughtsTokenCount: 5,
    });
    expect(emu.requests[0]).toMatchObject({ format: 'gemini', served: 'reply' });
    expect(emu.requests[0]!.headers['x-goog-api-key']).toBe('[redacted]');
  });
});

test('generateContent answers one candidate with every part; streamGenerateContent without alt=sse a JSON array', async () => {
  const script: Script = {
    responses: [{ reply: { text: TEXT, finish: 'length' } }, { reply: { text: 'a b c d e f g h' } }],
  };
  await withEmulator(script, async (emu) => {
    const whole = JSON.parse((await rawPost(url(emu, 'generateContent'), body)).text) as Chunk;
    expect(whole.candidates[0]).toEqual({
      content: { parts: [{ text: TEXT }], role: 'model' },
      finishReason: 'MAX_TOKENS',
      index: 0,
    });
    const array = JSON.parse((await rawPost(url(emu, 'streamGenerateContent'), body)).text) as Chunk[];
    expect(array.length).toBeGreaterThan(1);
    expect(array.map((c) => c.candidates[0]!.content.parts[0]!.text).join('')).toBe('a b c d e f g h');
  });
});

test("failures in Google's shapes: code, message and status; a mid-stream error chunk", async () => {
  const script: Script = {
    responses: [
      { fail: { kind: 'http', status: 429 } },
      { fail: { kind: 'stream_error', afterChunks: 2, message: 'boom' } },
    ],
  };
  await withEmulator(script, async (emu) => {
    const limited = await rawPost(url(emu, 'generateContent'), body);
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.text)).toEqual({
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
      },
    });
    const mid = sseJson<Record<string, unknown>>(
      (await rawPost(url(emu, 'streamGenerateContent', '?alt=sse'), body)).text,
    );
    expect(mid).toHaveLength(3);
    expect(mid[2]!.data).toEqual({ error: { code: 500, message: 'boom', status: 'INTERNAL' } });
  });
});

test('vars read systemInstruction and functionResponse parts; the model id comes from the path', async () => {
  const script: Script = {
    vars: {
      cwd: { from: 'system', pattern: 'Working directory: (\\S+)' },
      lines: { from: 'tool', pattern: '"lines":(\\d+)' },
    },
    responses: [{ reply: { text: '${cwd} has ${lines} lines' } }],
  };
  await withEmulator(script, async (emu) => {
    const withTool = {
      ...body,
      contents: [
        ...body.contents,
        { role: 'model', parts: [{ functionCall: { name: 'read_file', args: ARGS } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { lines: 42 } } }] },
      ],
    };
    const r = JSON.parse((await rawPost(url(emu, 'generateContent'), withTool)).text) as Chunk;
    expect(r.candidates[0]!.content.parts[0]!.text).toBe('/home/user/项目 has 42 lines');
    expect(r.modelVersion).toBe(MODEL);
  });
});
