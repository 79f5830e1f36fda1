/**
 * Faults over replay, proven against each provider's official client library as the caller: the answers
 * are recorded through the server (record mode, the stand-in upstream) by the same SDK, then replayed
 * keylessly with a fault in place of a call. Each test asserts what the SDK surfaces (error class,
 * status, error body, the text it got before the failure, whether it retried) and that the agent's retry
 * (the same request) gets the recorded answer.
 */

import type { WireFormat } from '@acp-snapshot/core';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError } from '@google/genai';
import { expect, test } from '@playwright/test';
import OpenAI from 'openai';
import type { Exchange } from './exchange-log.js';
import { lastUserText, type ModelFault } from './faults.js';
import { type ModelServer, startModelServer } from './server.js';
import { type FakeUpstream, startFakeUpstream } from './testing/fake-upstream.js';
import { rawRequest } from './testing/raw-client.js';
import { FORMATS, requestFor } from './testing/requests.js';
import { sdkClient } from './testing/sdk-clients.js';

// Like a real model: CJK and an emoji, a path, split over five events.
const DELTAS = ['Reading ', '/tmp/acp-w0-x/work', '/notes.txt: ', '你好, 世界', ' 🎉 done.'];
const ANSWER = DELTAS.join('');
const PROMPT = 'Read my notes and summarize them.';

const servers: Array<ModelServer | FakeUpstream> = [];
test.afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function upstream(): Promise<FakeUpstream> {
  const up = await startFakeUpstream({ deltas: DELTAS });
  servers.push(up);
  return up;
}

async function server(options: Parameters<typeof startModelServer>[0]): Promise<ModelServer> {
  const s = await startModelServer(options);
  servers.push(s);
  return s;
}

/** One streamed answer of `format`, recorded through the server by the format's SDK. */
async function recorded(format: WireFormat): Promise<Exchange[]> {
  const up = await upstream();
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url } });
  expect(await sdkClient(format, rec.url, 0).stream(PROMPT)).toBe(ANSWER);
  expect(rec.verdict().ok).toBe(true);
  return rec.exchanges;
}

/** What a call ended with: the text deltas it got, and its error (or undefined). */
async function attempt(client: ReturnType<typeof sdkClient>, signal?: AbortSignal) {
  const texts: string[] = [];
  try {
    const text = await client.stream(PROMPT, { onText: (t) => texts.push(t), ...(signal ? { signal } : {}) });
    return { texts, text, error: undefined };
  } catch (error) {
    return { texts, text: undefined, error: error as Error & { status?: number; error?: unknown } };
  }
}

/** The number of text deltas a format's first `frames` recorded frames carry (Anthropic opens with three without). */
const textsIn = (format: WireFormat, frames: number) =>
  Math.max(
    0,
    format === 'anthropic-messages' ? frames - 3 : format === 'openai-responses' ? frames - 1 : frames,
  );

/** The error class a format's SDK raises for an HTTP status, and the error body it keeps. */
function expectApiError(format: WireFormat, error: unknown, status: number, type: string) {
  if (format === 'gemini') {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(status);
    expect(JSON.parse((error as ApiError).message)).toMatchObject({ error: { code: status, status: type } });
  } else if (format === 'anthropic-messages') {
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(status);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type },
    });
  } else {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe(type);
  }
}

for (const format of FORMATS) {
  test.describe(format, () => {
    test('status 429 with retry-after: the SDK retries on its own and gets the recorded answer', async () => {
      const exchanges = await recorded(format);
      const rep = await server({
        mode: 'replay',
        exchanges,
        faults: [{ kind: 'status', status: 429, retryAfter: 0.001, call: 1 }],
      });
      const { text, error } = await attempt(sdkClient(format, rep.url, 2));
      expect(error).toBeUndefined();
      expect(text).toBe(ANSWER);
      expect(rep.calls).toBe(2);
      expect(rep.faulted).toBe(1);
      expect(rep.verdict()).toMatchObject({ ok: true, calls: 2 });
    });

    test('status 429 without retries: the SDK raises its rate-limit error with the provider body and headers', async () => {
      const rep = await server({
        mode: 'replay',
        exchanges: await recorded(format),
        faults: [
          {
            kind: 'status',
            status: 429,
            retryAfter: 7,
            headers: { 'x-ratelimit-remaining-requests': '0' },
            lastUserMessage: 'summarize',
          },
        ],
        optional: () => true,
      });
      const { error } = await attempt(sdkClient(format, rep.url, 0));
      const type = { gemini: 'RESOURCE_EXHAUSTED', 'anthropic-messages': 'rate_limit_error' }[
        format as string
      ];
      expectApiError(format, error, 429, type ?? 'requests');
      if (format === 'anthropic-messages') expect(error).toBeInstanceOf(Anthropic.RateLimitError);
      else if (format !== 'gemini') {
        expect(error).toBeInstanceOf(OpenAI.RateLimitError);
        const headers = (error as InstanceType<typeof OpenAI.RateLimitError>).headers;
        expect(headers.get('retry-after')).toBe('7');
        expect(headers.get('x-ratelimit-remaining-requests')).toBe('0');
      }
      expect(rep.verdict().ok).toBe(true);
    });

    test('status 401 with nothing recorded: the SDK raises its authentication error and does not retry', async () => {
      const rep = await server({ mode: 'replay', exchanges: [], faults: [{ kind: 'status', status: 401 }] });
      const { error } = await attempt(sdkClient(format, rep.url, 2));
      const type = { gemini: 'UNAUTHENTICATED', 'anthropic-messages': 'authentication_error' }[
        format as string
      ];
      expectApiError(format, error, 401, type ?? 'invalid_request_error');
      if (format === 'anthropic-messages') expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
      else if (format !== 'gemini') expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(rep.calls).toBe(1);
      expect(rep.faulted).toBe(1);
      expect(rep.verdict()).toMatchObject({ ok: true, calls: 1 });
    });

    test("the provider's overload twice in a row (times: 2): two retries, then the recorded answer", async () => {
      // Anthropic's 529 overloaded_error; OpenAI's 500 server_error; Gemini's 503 UNAVAILABLE.
      const status = { 'anthropic-messages': 529, gemini: 503 }[format as string] ?? 500;
      const rep = await server({
        mode: 'replay',
        exchanges: await recorded(format),
        faults: [{ kind: 'status', status, retryAfter: 0.001, times: 2 }],
      });
      const failed = await attempt(sdkClient(format, rep.url, 0));
      const type = { gemini: 'UNAVAILABLE', 'anthropic-messages': 'overloaded_error' }[format as string];
      expectApiError(format, failed.error, status, type ?? 'server_error');
      if (format === 'anthropic-messages') expect(failed.error).toBeInstanceOf(Anthropic.OverloadedError);
      else if (format !== 'gemini') expect(failed.error).toBeInstanceOf(OpenAI.InternalServerError);
      const { text, error } = await attempt(sdkClient(format, rep.url, 1));
      expect(error).toBeUndefined();
      expect(text).toBe(ANSWER);
      expect(rep.calls).toBe(3);
      expect(rep.verdict().ok).toBe(true);
    });

    test('cut after 4 frames: the SDK gets their text, then the connection error it raises for a dropped line; the retry gets the answer', async () => {
      const rep = await server({
        mode: 'replay',
        exchanges: await recorded(format),
        faults: [{ kind: 'cut', afterFrames: 4 }],
      });
      const cut = await attempt(sdkClient(format, rep.url, 2));
      expect(cut.texts).toEqual(DELTAS.slice(0, textsIn(format, 4)));
      // undici's "terminated" (the socket closed mid-body), as for a real dropped stream; no SDK retries a body.
      expect(cut.error).toBeInstanceOf(TypeError);
      expect(cut.error?.message).toBe('terminated');
      expect(rep.calls).toBe(1);
      const retry = await attempt(sdkClient(format, rep.url, 2));
      expect(retry.text).toBe(ANSWER);
      expect(rep.verdict()).toMatchObject({ ok: true, calls: 2 });
    });

    test("malformed after 4 frames: the SDK gets their text, then its parser's error on the broken frame", async () => {
      const rep = await server({
        mode: 'replay',
        exchanges: await recorded(format),
        faults: [{ kind: 'malformed', afterFrames: 4 }],
      });
      const broken = await attempt(sdkClient(format, rep.url, 2));
      expect(broken.texts).toEqual(DELTAS.slice(0, textsIn(format, 4)));
      expect(broken.error).toBeInstanceOf(SyntaxError);
      expect(rep.calls).toBe(1);
      expect((await attempt(sdkClient(format, rep.url, 0))).text).toBe(ANSWER);
      expect(rep.verdict().ok).toBe(true);
    });

    test('stall after 4 frames: the stream stays open with nothing more until the caller cancels; the retry gets the answer', async () => {
      const rep = await server({
        mode: 'replay',
        exchanges: await recorded(format),
        faults: [{ kind: 'stall', afterFrames: 4 }],
      });
      const abort = new AbortController();
      const texts: string[] = [];
      let settled = false;
      const expected = textsIn(format, 4);
      let reached!: () => void;
      const allTexts = new Promise<void>((r) => {
        reached = r;
      });
      const call = sdkClient(format, rep.url, 2)
        .stream(PROMPT, {
          signal: abort.signal,
          onText: (t) => {
            texts.push(t);
            if (texts.length === expected) reached();
          },
        })
        .then(
          (text) => ({ text, error: undefined }),
          (error: Error) => ({ text: undefined, error }),
        )
        .finally(() => {
          settled = true;
        });
      await allTexts;
      // An observation window: a stall sends nothing more and never ends the call by itself.
      await new Promise((r) => setTimeout(r, 150));
      expect(settled).toBe(false);
      expect(texts).toEqual(DELTAS.slice(0, expected));
      abort.abort();
      const ended = await call;
      if (format === 'gemini') expect(ended.error?.name).toBe('AbortError');
      // The OpenAI and Anthropic SDKs end a stream their caller aborted quietly, with what it got.
      else expect(ended).toEqual({ text: DELTAS.slice(0, expected).join(''), error: undefined });
      expect(rep.calls).toBe(1);
      expect((await attempt(sdkClient(format, rep.url, 0))).text).toBe(ANSWER);
      expect(rep.verdict().ok).toBe(true);
    });

    test('delay: the recorded answer whole, its frames paced by the server', async () => {
      const rep = await server({
        mode: 'replay',
        exchanges: await recorded(format),
        faults: [{ kind: 'delay', intervalMs: 40 }],
      });
      const at: number[] = [];
      const started = performance.now();
      const text = await sdkClient(format, rep.url, 0).stream(PROMPT, {
        onText: () => at.push(performance.now() - started),
      });
      expect(text).toBe(ANSWER);
      // Frame f leaves the server no earlier than (f + 1) intervals in (timers fire late, never early); the
      // text deltas follow the frames without text a format opens with.
      const lead = 5 - textsIn(format, 5);
      for (const [i, ms] of at.entries()) expect(ms).toBeGreaterThanOrEqual((i + lead + 1) * 40 - 2);
      expect(rep.verdict().ok).toBe(true);
    });
  });
}

test('lastUserMessage reads the last user text of each format', () => {
  for (const format of FORMATS) {
    const { body } = requestFor(format, {
      cwd: '/w',
      date: 'today',
      prompt: 'fix the bug 🐛',
      stream: true,
    });
    expect(lastUserText(format, body), format).toBe('fix the bug 🐛');
  }
  // Parts (OpenAI content parts, Anthropic blocks), the last user turn, not a later assistant one.
  expect(
    lastUserText('anthropic-messages', {
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        {
          role: 'user',
          content: [{ type: 'text', text: 'sec' }, { type: 'image' }, { type: 'text', text: 'ond' }],
        },
        { role: 'assistant', content: 'done' },
      ],
    }),
  ).toBe('second');
  expect(lastUserText('openai-responses', { input: 'plain' })).toBe('plain');
});

test('matching by path, JSON Pointer and last user message takes the first matching call only, once', async () => {
  const up = await upstream();
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url } });
  const chat = (prompt: string, model = 'qwen-x') => {
    const { path, body } = requestFor('openai-chat', { cwd: '/w', date: 'd', prompt, stream: false });
    return { path, body: JSON.stringify({ ...body, model }) };
  };
  const calls = [chat('one'), chat('two', 'big-model'), chat('three')];
  for (const c of calls) await rawRequest(rec.url, 'POST', c.path, c.body);
  const faults: ModelFault[] = [
    { kind: 'status', status: 500, path: '/chat/completions', body: { '/model': 'big-model' } },
    { kind: 'status', status: 503, lastUserMessage: /^th/ },
  ];
  const rep = await server({ mode: 'replay', exchanges: rec.exchanges, faults, optional: () => true });
  const statuses = [];
  for (const c of [...calls, calls[2]!])
    statuses.push((await rawRequest(rep.url, 'POST', c.path, c.body)).status);
  // one: no fault; two: the model pointer; three: the RegExp; three again: both faults spent, the recording.
  expect(statuses).toEqual([200, 500, 503, 200]);
  expect(rep.verdict().ok).toBe(true);
});

test('a declared fault that never fires fails the verdict, naming the fault and the calls that were made', async () => {
  const exchanges = await recorded('openai-chat');
  const rep = await server({
    mode: 'replay',
    exchanges,
    faults: [
      { kind: 'status', status: 429, call: 2, name: 'second call rate-limited' },
      { kind: 'stall', afterFrames: 1, lastUserMessage: 'never said', times: 2 },
    ],
  });
  expect(await sdkClient('openai-chat', rep.url, 0).stream(PROMPT)).toBe(ANSWER);
  const v = rep.verdict();
  expect(v.ok).toBe(false);
  expect(v.failures.map((f) => f.kind)).toEqual(['fault-unfired', 'fault-unfired']);
  expect(v.message).toContain('fault "second call rate-limited" (status 429) on call 2 never fired');
  expect(v.message).toContain(
    'fault 2 (stall after 1 frame(s)) on last user message containing "never said", 2 times never fired',
  );
  expect(v.message).toContain(`call 1 (POST /v1/chat/completions, last user message "${PROMPT}")`);
  expect(v.message).toContain('compare its call, path, body or lastUserMessage with the calls made');
  expect(v.message).not.toContain('re-record');
});

test('a bad fault is refused at once, naming the fault, the field and the shape', async () => {
  await expect(
    startModelServer({
      mode: 'replay',
      exchanges: [],
      faults: [{ kind: 'status', status: 200 } as ModelFault],
    }),
  ).rejects.toThrow(/options\.faults: fault 1: status: .*a fault is \{ kind: 'status' \| 'cut'/);
  const rep = await server({ mode: 'replay', exchanges: [] });
  expect(() => rep.fault({ kind: 'cut', afterFrames: -1 })).toThrow(/fault\(\): fault 1: afterFrames/);
  expect(() => rep.fault({ kind: 'explode' } as unknown as ModelFault)).toThrow(/fault 1: kind/);
  expect(() => rep.fault({ kind: 'cut', afterFrame: 2 } as unknown as ModelFault)).toThrow(
    /fault 1: afterFrame: Unrecognized key/,
  );
});

test('record mode: a status fault is answered locally and the retry is recorded; a cut serves the upstream answer in part, unrecorded', async () => {
  const up = await upstream();
  const rec = await server({
    mode: 'record',
    upstream: { baseUrl: up.url },
    faults: [{ kind: 'status', status: 429, retryAfter: 0.001 }],
  });
  expect(await sdkClient('anthropic-messages', rec.url, 2).stream(PROMPT)).toBe(ANSWER);
  rec.fault({ kind: 'cut', afterFrames: 4 });
  const cut = await attempt(sdkClient('anthropic-messages', rec.url, 2));
  expect(cut.texts).toEqual(DELTAS.slice(0, 1));
  expect(cut.error?.message).toBe('terminated');
  // The 429 never reached the upstream; the cut did (its answer is what it serves part of).
  expect(up.requests.length).toBe(2);
  expect(rec.exchanges.length).toBe(1);
  expect(rec.verdict()).toMatchObject({ ok: true, calls: 3 });
  // The recording replays under the same faults.
  const rep = await server({
    mode: 'replay',
    exchanges: rec.exchanges,
    faults: [{ kind: 'status', status: 429, retryAfter: 0.001 }],
  });
  expect(await sdkClient('anthropic-messages', rep.url, 2).stream(PROMPT)).toBe(ANSWER);
  expect(rep.verdict()).toMatchObject({ ok: true, calls: 2 });
});

test("a non-streamed answer: malformed is a truncated JSON body the SDK's parse fails on; with nothing recorded, a cut still answers a 200 and drops the line", async () => {
  const up = await upstream();
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url } });
  const { path, body } = requestFor('anthropic-messages', {
    cwd: '/w',
    date: 'd',
    prompt: PROMPT,
    stream: false,
  });
  const whole = await rawRequest(rec.url, 'POST', path, JSON.stringify(body));
  expect(JSON.parse(whole.body.toString())).toMatchObject({ content: [{ type: 'text', text: ANSWER }] });
  const rep = await server({
    mode: 'replay',
    exchanges: rec.exchanges,
    faults: [{ kind: 'malformed', afterFrames: 0 }],
  });
  const broken = await rawRequest(rep.url, 'POST', path, JSON.stringify(body));
  expect(broken.status).toBe(200);
  expect(broken.headers['content-type']).toBe('application/json');
  expect(() => JSON.parse(broken.body.toString())).toThrow(SyntaxError);
  // The SDK's non-streamed call: its JSON parse fails as on a real garbled answer.
  rep.fault({ kind: 'malformed' });
  const client = new Anthropic({ baseURL: rep.url, apiKey: 'dummy', maxRetries: 0 });
  await expect(
    client.messages.create({
      model: 'claude-x',
      max_tokens: 1024,
      messages: [{ role: 'user', content: PROMPT }],
    }),
  ).rejects.toThrow(SyntaxError);
  // Nothing recorded for this request: the cut sends a 200's headers and drops the line.
  rep.fault({ kind: 'cut', afterFrames: 3 });
  const other = requestFor('gemini', { cwd: '/w', date: 'd', prompt: 'never recorded', stream: true });
  const res = await fetch(rep.url + other.path, { method: 'POST', body: JSON.stringify(other.body) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  await expect(res.text()).rejects.toThrow('terminated');
  expect(rep.faulted).toBe(3);
});
