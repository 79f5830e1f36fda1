import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WireFormat } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import OpenAI from 'openai';
import { readExchangeLog, writeExchangeLog } from './exchange-log.js';
import { ERROR_HEADER } from './http.js';
import type { NormalizeOptions } from './normalize.js';
import { type ModelServer, startModelServer } from './server.js';
import { cannedAnswer, type FakeUpstream, startFakeUpstream } from './testing/fake-upstream.js';
import { rawRequest, sseEvents } from './testing/raw-client.js';
import { answerDeltas, FORMATS, requestFor, type Turn } from './testing/requests.js';

// Two runs of one scenario: generated roots of the same length, a day apart.
const CWD_A = '/tmp/acp-mh-AAAAAAAA/work';
const CWD_B = '/tmp/acp-mh-BBBBBBBB/work';
const DAY_A = 'Tuesday, December 1, 2026';
const DAY_B = 'Wednesday, December 2, 2026';

const normalize = (cwd: string): NormalizeOptions => ({
  roots: { cwd },
  ids: [
    { path: 'metadata.user_id', name: 'userId' },
    { path: 'prompt_cache_key', name: 'sessionId' },
  ],
});

const turn = (cwd: string, date: string, stream: boolean, prompt = 'read my notes'): Turn => ({
  cwd,
  date,
  prompt,
  stream,
  sessionId: cwd === CWD_A ? 'a1b2c3' : 'd4e5f6',
});

const servers: Array<ModelServer | FakeUpstream> = [];
test.afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function upstream(options: Parameters<typeof startFakeUpstream>[0]): Promise<FakeUpstream> {
  const up = await startFakeUpstream(options);
  servers.push(up);
  return up;
}

async function server(options: Parameters<typeof startModelServer>[0]): Promise<ModelServer> {
  const s = await startModelServer(options);
  servers.push(s);
  return s;
}

/** Records one call of `format` through the server into a file; returns the file's exchanges, re-read. */
async function recordOne(dir: string, format: WireFormat, stream: boolean, split: boolean) {
  const up = await upstream({ deltas: answerDeltas(CWD_A), split });
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url }, normalize: normalize(CWD_A) });
  const { path, body } = requestFor(format, turn(CWD_A, DAY_A, stream));
  const live = await rawRequest(rec.url, 'POST', path, JSON.stringify(body));
  expect(rec.verdict()).toMatchObject({ ok: true, calls: 1 });
  const file = join(dir, 'exchanges.jsonl');
  const sidecarsDir = join(dir, 'sidecars');
  writeExchangeLog(file, rec.exchanges, { sidecarsDir, sidecarBytes: 128 });
  return { live, file, sidecarsDir, exchanges: readExchangeLog(file, { sidecars: sidecarsDir }) };
}

for (const format of FORMATS) {
  for (const stream of [true, false]) {
    test(`${format}${stream ? ', streamed' : ''}: recorded, written, parsed and replayed in another run byte for byte, frame for frame`, async () => {
      const testInfo = test.info();
      const { live, file, sidecarsDir, exchanges } = await recordOne(
        testInfo.outputPath(),
        format,
        stream,
        true,
      );
      const answerA = cannedAnswer(format, answerDeltas(CWD_A), stream);
      // Record hands the agent the upstream's bytes, split inside characters as they came.
      expect(live.body.toString()).toBe(answerA.frames.join(''));
      expect(live.status).toBe(200);
      expect(live.headers['content-type']).toBe(answerA.type);

      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain('acp-mh-AAAAAAAA');
      expect(text).not.toContain('December 1');
      expect(text).toContain(stream ? '{{cwd[0:11]}}' : '{{cwd}}/notes.txt');
      // The system prompt went to a sidecar, named by its sha256, holding the normalized text.
      const sidecars = readdirSync(sidecarsDir);
      expect(sidecars.length).toBeGreaterThan(0);
      expect(sidecars.every((n) => /^[0-9a-f]{64}\.json$/.test(n))).toBe(true);
      const prompt = sidecars.map((n) => readFileSync(join(sidecarsDir, n), 'utf8')).join('');
      expect(prompt).toContain("Today's date is {{date}}.");
      expect(prompt).toContain('{{cwd}}; your notes live in ~/.claude/projects/{{cwdDashed}}/memory');

      const rep = await server({ mode: 'replay', exchanges, normalize: normalize(CWD_B) });
      const { path, body } = requestFor(format, turn(CWD_B, DAY_B, stream));
      const replayed = await rawRequest(rep.url, 'POST', path, JSON.stringify(body));
      const answerB = cannedAnswer(format, answerDeltas(CWD_B), stream);
      expect(replayed.status, replayed.body.toString()).toBe(200);
      expect(replayed.headers['content-type']).toBe(answerB.type);
      // Each SSE event is one write (its own chunk on the wire), exactly the upstream's, with this run's cwd.
      expect(replayed.chunks.map(String)).toEqual(stream ? answerB.frames : [answerB.frames.join('')]);
      if (stream) expect(sseEvents(replayed.body).length).toBe(sseEvents(live.body).length);
      expect(rep.verdict()).toEqual({ ok: true, failures: [], calls: 1, message: '' });
    });
  }
}

test('framing "received": the reads are kept as they arrived (bytes not UTF-8 alone as base64) and served as such', async () => {
  const up = await upstream({ deltas: answerDeltas(CWD_A), split: true });
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url }, framing: 'received' });
  const { path, body } = requestFor('anthropic-messages', turn(CWD_A, DAY_A, true));
  const live = await rawRequest(rec.url, 'POST', path, JSON.stringify(body));
  const frames = rec.exchanges[0]!.response.frames;
  expect(
    Buffer.concat(frames.map((f) => ('text' in f ? Buffer.from(f.text) : Buffer.from(f.base64, 'base64')))),
  ).toEqual(live.body);
  const rep = await server({ mode: 'replay', exchanges: rec.exchanges });
  const replayed = await rawRequest(rep.url, 'POST', path, JSON.stringify(body));
  expect(replayed.chunks.map((c) => c.toString('base64'))).toEqual(
    frames.map((f) => ('text' in f ? Buffer.from(f.text).toString('base64') : f.base64)),
  );
});

test('the openai SDK streams chat completions and responses through record and replay', async () => {
  const up = await upstream({ deltas: answerDeltas(CWD_A) });
  const chatText = async (url: string) => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'dummy', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'qwen-x',
      stream: true,
      messages: [{ role: 'user', content: `Today's date is ${DAY_A}. Read ${CWD_A}/notes.txt` }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    return text;
  };
  const responsesText = async (url: string) => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'dummy', maxRetries: 0 });
    const stream = await client.responses.create({ model: 'gpt-x', input: 'read my notes', stream: true });
    let text = '';
    for await (const ev of stream) if (ev.type === 'response.output_text.delta') text += ev.delta;
    return text;
  };
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url }, normalize: normalize(CWD_A) });
  const expected = answerDeltas(CWD_A).join('');
  expect(await chatText(rec.url)).toBe(expected);
  expect(await responsesText(rec.url)).toBe(expected);
  const rep = await server({ mode: 'replay', exchanges: rec.exchanges, normalize: normalize(CWD_A) });
  // Content, not position: asked in the other order.
  expect(await responsesText(rep.url)).toBe(expected);
  expect(await chatText(rep.url)).toBe(expected);
  expect(rep.verdict().ok).toBe(true);
});

test('drift: a changed request gets an error in its format at once, and the verdict names the call, the path and the fix', async () => {
  const testInfo = test.info();
  const { exchanges } = await recordOne(testInfo.outputPath(), 'anthropic-messages', true, false);
  const rep = await server({
    mode: 'replay',
    exchanges,
    normalize: normalize(CWD_B),
    verdict: { fix: 'npm run record -- hello', file: 'fixtures/scenarios/hello/exchanges.jsonl' },
  });
  const { path, body } = requestFor('anthropic-messages', turn(CWD_B, DAY_B, true, 'read my notes, please'));
  const res = await rawRequest(rep.url, 'POST', path, JSON.stringify(body));
  expect(res.status).toBe(400);
  expect(res.headers[ERROR_HEADER]).toBe('replay-mismatch');
  const error = JSON.parse(res.body.toString());
  expect(error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  expect(error.error.message).toContain('differs at body.messages[0].content');

  const v = rep.verdict();
  expect(v.ok).toBe(false);
  expect(v.failures[0]).toMatchObject({
    kind: 'unmatched',
    call: 1,
    method: 'POST',
    path: '/v1/messages',
    closest: {
      index: 0,
      difference: {
        path: 'body.messages[0].content',
        recorded: 'read my notes',
        live: 'read my notes, please',
      },
    },
  });
  expect(v.message).toContain(
    'call 1 (POST /v1/messages) matches no recorded exchange; closest is exchange 0, first differing at body.messages[0].content',
  );
  expect(v.message).toContain('recorded: "read my notes" (at character 13)');
  expect(v.message).toContain('live:     "read my notes, please" (at character 13)');
  expect(v.message).toContain('exchange 0 (POST /v1/messages) was recorded but never requested');
  expect(v.message).toContain('re-record: npm run record -- hello');
  expect(v.message).toContain('fixtures/scenarios/hello/exchanges.jsonl');
});

test('a rule added after the recording applies to the recorded requests too: they replay without recording again', async () => {
  const dir = test.info().outputPath();
  // The machine's kernel in the system prompt, as claude-agent-acp sends it; the machine was upgraded since.
  const kernel = (version: string) => `Environment:\n - Platform: linux\n - OS Version: Linux ${version}\n`;
  const osVersion = { pattern: '(?<=OS Version: )[^\\n]+', placeholder: '{{osVersion}}' };
  const withRule = (cwd: string): NormalizeOptions => ({
    ...normalize(cwd),
    ids: [...(normalize(cwd).ids ?? []), osVersion],
  });
  const record = async (rules: NormalizeOptions, name: string) => {
    const up = await upstream({ deltas: answerDeltas(CWD_A) });
    const rec = await server({ mode: 'record', upstream: { baseUrl: up.url }, normalize: rules });
    const { path, body } = requestFor('anthropic-messages', {
      ...turn(CWD_A, DAY_A, true),
      bulk: kernel('6.18.44-fc-v1045'),
    });
    expect((await rawRequest(rec.url, 'POST', path, JSON.stringify(body))).status).toBe(200);
    const file = join(dir, name, 'exchanges.jsonl');
    writeExchangeLog(file, rec.exchanges, {
      sidecarsDir: join(dir, name, 'sidecars'),
      sidecarBytes: 1 << 20,
    });
    return { file, exchanges: readExchangeLog(file, { sidecars: join(dir, name, 'sidecars') }) };
  };
  const replay = async (exchanges: ReturnType<typeof readExchangeLog>, bulk: string) => {
    const rep = await server({ mode: 'replay', exchanges, normalize: withRule(CWD_B) });
    const { path, body } = requestFor('anthropic-messages', { ...turn(CWD_B, DAY_B, true), bulk });
    const res = await rawRequest(rep.url, 'POST', path, JSON.stringify(body));
    return { res, verdict: rep.verdict() };
  };

  // Recorded before the rule: the file holds the old kernel as it was.
  const before = await record(normalize(CWD_A), 'before');
  expect(readFileSync(before.file, 'utf8')).toContain('OS Version: Linux 6.18.44-fc-v1045');
  const upgraded = await replay(before.exchanges, kernel('6.18.44-fc-v1272'));
  expect(upgraded.res.status, upgraded.res.body.toString()).toBe(200);
  expect(upgraded.verdict).toMatchObject({ ok: true, calls: 1, failures: [] });

  // Recorded under the rule: its placeholder stays as it is when the rule applies again.
  const under = await record(withRule(CWD_A), 'under');
  expect(readFileSync(under.file, 'utf8')).toContain('OS Version: {{osVersion#1}}');
  const again = await replay(under.exchanges, kernel('7.0.1-other'));
  expect(again.res.status, again.res.body.toString()).toBe(200);
  expect(again.verdict).toMatchObject({ ok: true, calls: 1, failures: [] });

  // A live request without the line still fails, naming the closest recorded request and where it differs.
  const without = await replay(before.exchanges, 'Environment:\n - Platform: linux\n');
  expect(without.res.status).toBe(400);
  expect(JSON.parse(without.res.body.toString()).error.message).toContain(
    'closest recorded request differs at body.system',
  );
  expect(without.verdict.failures[0]).toMatchObject({
    kind: 'unmatched',
    closest: { index: 0, difference: { path: 'body.system' } },
  });
  expect(without.verdict.message).toContain('OS Version: {{osVersion#1}}');
});

test('unused recorded exchanges fail the verdict, unless the optional matcher excuses them (background calls)', async () => {
  const up = await upstream({ deltas: ['ok'] });
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url } });
  for (const prompt of ['the turn', 'memory extraction']) {
    const { path, body } = requestFor('openai-chat', turn(CWD_A, DAY_A, true, prompt));
    await rawRequest(rec.url, 'POST', path, JSON.stringify(body));
  }
  expect(rec.awaitingCalls()).toBe(false);
  const { path, body } = requestFor('openai-chat', turn(CWD_A, DAY_A, true, 'the turn'));
  const strict = await server({ mode: 'replay', exchanges: rec.exchanges });
  expect(strict.awaitingCalls()).toBe(true);
  await rawRequest(strict.url, 'POST', path, JSON.stringify(body));
  // The background call is still to come: a harness waits for it before it ends the agent.
  expect(strict.awaitingCalls()).toBe(true);
  expect(strict.verdict().failures).toEqual([
    { kind: 'unused', index: 1, method: 'POST', path: '/v1/chat/completions' },
  ]);
  const memory = requestFor('openai-chat', turn(CWD_A, DAY_A, true, 'memory extraction'));
  await rawRequest(strict.url, 'POST', memory.path, JSON.stringify(memory.body));
  expect(strict.awaitingCalls()).toBe(false);
  expect(strict.verdict().ok).toBe(true);

  // Once a request matched nothing, nothing more is awaited: the replay has failed already.
  const drifted = await server({ mode: 'replay', exchanges: rec.exchanges });
  const other = requestFor('openai-chat', turn(CWD_A, DAY_A, true, 'another prompt'));
  await rawRequest(drifted.url, 'POST', other.path, JSON.stringify(other.body));
  expect(drifted.awaitingCalls()).toBe(false);

  const lenient = await server({
    mode: 'replay',
    exchanges: rec.exchanges,
    optional: (ex) => JSON.stringify(ex.request.body).includes('memory extraction'),
  });
  expect(lenient.awaitingCalls()).toBe(true);
  await rawRequest(lenient.url, 'POST', path, JSON.stringify(body));
  // An optional call may never come: nothing is awaited for it.
  expect(lenient.awaitingCalls()).toBe(false);
  expect(lenient.verdict().ok).toBe(true);
});

test('retries with the same body take the recorded exchanges in order; one more than recorded is named as such', async () => {
  const up = await upstream({ deltas: ['after a retry'], failFirst: 1 });
  const responseHeaders = ['content-type', 'retry-after-ms'];
  const ask = async (url: string) => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'dummy', maxRetries: 1 });
    const r = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    return r.choices[0]?.message.content;
  };
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url }, responseHeaders });
  expect(await ask(rec.url)).toBe('after a retry');
  expect(rec.exchanges.map((e) => e.response.status)).toEqual([500, 200]);
  expect(rec.exchanges[0]!.request).toEqual(rec.exchanges[1]!.request);

  const rep = await server({ mode: 'replay', exchanges: rec.exchanges, responseHeaders });
  expect(await ask(rep.url)).toBe('after a retry');
  expect(rep.verdict().ok).toBe(true);
  const again = await rawRequest(
    rep.url,
    'POST',
    '/v1/chat/completions',
    JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  );
  expect(again.status).toBe(400);
  expect(rep.verdict().message).toContain(
    'the 2 recorded exchange(s) with this exact request were all served already',
  );
});

test('two streams at once: recorded concurrently, replayed concurrently, each gets its own answer', async () => {
  const up = await upstream({ deltas: ['first ', 'second ', 'third'], hold: true });
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url } });
  const a = requestFor('openai-chat', turn(CWD_A, DAY_A, true, 'session one'));
  const b = requestFor('gemini', turn(CWD_A, DAY_A, true, 'session two'));
  const both = Promise.all([a, b].map((r) => rawRequest(rec.url, 'POST', r.path, JSON.stringify(r.body))));
  // Both are mid-stream at the upstream at the same time before either may finish.
  await up.holding(2);
  up.release();
  const [liveA, liveB] = await both;
  expect(rec.exchanges).toHaveLength(2);

  const rep = await server({ mode: 'replay', exchanges: rec.exchanges });
  const [repB, repA] = await Promise.all(
    [b, a].map((r) => rawRequest(rep.url, 'POST', r.path, JSON.stringify(r.body))),
  );
  expect(repA!.body).toEqual(liveA!.body);
  expect(repB!.body).toEqual(liveB!.body);
  expect(repB!.body.toString()).toContain('\r\n\r\n');
  expect(rep.verdict().ok).toBe(true);
});

test("claude's HEAD / preflight is answered locally in both modes and never recorded", async () => {
  const up = await upstream({ deltas: ['x'] });
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url } });
  const rep = await server({ mode: 'replay', exchanges: [] });
  for (const s of [rec, rep]) {
    const res = await fetch(`${s.url}/`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(s.verdict().ok).toBe(true);
  }
  expect(up.requests).toEqual([]);
  expect(rec.exchanges).toEqual([]);
});

test('upstream down: the call gets an error in its format and the recording fails with the reason', async () => {
  const up = await startFakeUpstream({ deltas: [] });
  await up.close();
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url } });
  const { path, body } = requestFor('gemini', turn(CWD_A, DAY_A, true));
  const res = await rawRequest(rec.url, 'POST', path, JSON.stringify(body));
  expect(res.status).toBe(502);
  expect(JSON.parse(res.body.toString())).toMatchObject({ error: { code: 502, status: 'UNAVAILABLE' } });
  const v = rec.verdict();
  expect(v.failures).toEqual([
    {
      kind: 'record-failed',
      call: 1,
      method: 'POST',
      path,
      reason: `could not reach the upstream ${up.url}: ECONNREFUSED`,
    },
  ]);
  expect(v.message).toContain(
    `call 1 (POST ${path}) could not be recorded: could not reach the upstream ${up.url}: ECONNREFUSED`,
  );
  expect(rec.exchanges).toEqual([]);
});

test('the key: taken from the named variable, sent upstream in the format header, never in the file', async () => {
  const testInfo = test.info();
  const up = await upstream({ deltas: ['ok'] });
  const env = { TEST_UPSTREAM_KEY: 'sk-live-0123456789' };
  const rec = await server({
    mode: 'record',
    upstream: { baseUrl: up.url, apiKeyEnv: 'TEST_UPSTREAM_KEY' },
    env,
  });
  const chat = requestFor('openai-chat', turn(CWD_A, DAY_A, false));
  await rawRequest(rec.url, 'POST', chat.path, JSON.stringify(chat.body), {
    authorization: 'Bearer agent-dummy',
  });
  const gem = requestFor('gemini', turn(CWD_A, DAY_A, false));
  await rawRequest(rec.url, 'POST', `${gem.path}?key=agent-dummy`, JSON.stringify(gem.body), {
    'x-goog-api-key': 'agent-dummy',
  });
  const claude = requestFor('anthropic-messages', turn(CWD_A, DAY_A, false));
  await rawRequest(rec.url, 'POST', claude.path, JSON.stringify(claude.body), { 'x-api-key': 'agent-dummy' });
  expect(
    up.requests.map((r) => r.headers.authorization ?? r.headers['x-goog-api-key'] ?? r.headers['x-api-key']),
  ).toEqual(['Bearer sk-live-0123456789', 'sk-live-0123456789', 'sk-live-0123456789']);
  expect(up.requests[1]!.path).toBe('/v1beta/models/gemini-x:generateContent');
  const file = testInfo.outputPath('exchanges.jsonl');
  writeExchangeLog(file, rec.exchanges, { sidecarsDir: testInfo.outputPath('sidecars') });
  const written = readFileSync(file, 'utf8') + readdirSync(testInfo.outputPath('sidecars')).join('');
  expect(written).not.toContain('sk-live');
  expect(written).not.toContain('agent-dummy');
  expect(rec.exchanges[1]!.request.path).toBe('/v1beta/models/gemini-x:generateContent');

  const unset = await server({
    mode: 'record',
    upstream: { baseUrl: up.url, apiKeyEnv: 'TEST_UNSET_KEY' },
    env: {},
  });
  const res = await rawRequest(unset.url, 'POST', chat.path, JSON.stringify(chat.body));
  expect(res.status).toBe(502);
  expect(unset.verdict().message).toContain(
    'the upstream key variable TEST_UNSET_KEY is not set; export it and record again',
  );
});

test('a cancelled stream is recorded as aborted; replay serves its frames and holds the connection until the agent closes it', async () => {
  const up = await upstream({ deltas: ['one ', 'two ', 'three'], hold: true });
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url } });
  const { path, body } = requestFor('openai-chat', turn(CWD_A, DAY_A, true));
  const cancel = new AbortController();
  const res = await fetch(rec.url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    signal: cancel.signal,
  });
  const reader = res.body!.getReader();
  const first = await reader.read();
  expect(Buffer.from(first.value!).toString()).toContain('"one "');
  await up.holding(1);
  cancel.abort();
  await expect(reader.read()).rejects.toThrow();
  await expect.poll(() => rec.exchanges.length).toBe(1);
  expect(rec.exchanges[0]!.response.aborted).toBe(true);
  up.release();

  const rep = await server({ mode: 'replay', exchanges: rec.exchanges });
  const again = new AbortController();
  const replayed = await fetch(rep.url + path, {
    method: 'POST',
    body: JSON.stringify(body),
    signal: again.signal,
  });
  const r2 = replayed.body!.getReader();
  expect(Buffer.from((await r2.read()).value!).toString()).toContain('"one "');
  again.abort();
  await expect(r2.read()).rejects.toThrow();
  expect(rep.verdict().ok).toBe(true);
});

test('timing: recorded offsets are kept with timing "recorded" and replay serves each frame no earlier than its offset', async () => {
  const up = await upstream({ deltas: ['a', 'b', 'c'] });
  const rec = await server({ mode: 'record', upstream: { baseUrl: up.url }, timing: 'recorded' });
  const { path, body } = requestFor('openai-chat', turn(CWD_A, DAY_A, true));
  await rawRequest(rec.url, 'POST', path, JSON.stringify(body));
  const offsets = rec.exchanges[0]!.response.frames.map((f) => f.atMs);
  expect(offsets.every((t) => Number.isInteger(t))).toBe(true);
  expect([...offsets].sort((x, y) => x! - y!)).toEqual(offsets);

  const frames = [
    { text: 'data: {"n":1}\n\n', atMs: 0 },
    { text: 'data: [DONE]\n\n', atMs: 120 },
  ];
  const exchange = { request: rec.exchanges[0]!.request, response: { status: 200, headers: {}, frames } };
  const rep = await server({ mode: 'replay', exchanges: [exchange], timing: 'recorded' });
  const started = performance.now();
  const res = await rawRequest(rep.url, 'POST', path, JSON.stringify(body));
  // Timers may fire up to a millisecond early (whole-millisecond granularity), never later than asked.
  expect(performance.now() - started).toBeGreaterThanOrEqual(119);
  expect(res.chunks.map(String)).toEqual(frames.map((f) => f.text));
});

test('record refuses an upstream that is not an absolute URL, before any request', async () => {
  await expect(startModelServer({ mode: 'record', upstream: { baseUrl: 'localhost:8080' } })).rejects.toThrow(
    'model-http: upstream.baseUrl "localhost:8080" is not an absolute http(s) URL; give the model\'s origin, e.g. http://127.0.0.1:8080',
  );
});
