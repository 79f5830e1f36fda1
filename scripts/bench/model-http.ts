// `npm run bench -- model-http`: the model record/replay server on loopback: requests served per second,
// latency it adds to a streamed answer against the same frames streamed by a bare server, frames
// delivered exactly, and the fingerprint rate of an ~80 KB request body.
import { createHash } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Exchange,
  fingerprint,
  frameBytes,
  RequestNormalizer,
  startModelServer,
} from '@acp-snapshot/model-http';
import { largeChatRequest, rawRequest, startFakeUpstream } from '@acp-snapshot/model-http/testing';
import { median, writeResults } from './_results.js';

const CWD = '/tmp/acp-mh-bench0000/work';
/** Frames of the benchmarked answer (a typical short streamed turn). */
const DELTAS = Array.from({ length: 60 }, (_, i) => `token ${i} `);
const RUNS = 5;
const LATENCY_REQUESTS = 200;
const THROUGHPUT_REQUESTS = 1500;
const CONCURRENCY = 8;

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/**
 * One POST to `url`, the body read to its end; resolves with the milliseconds it took (`firstFrame`: until
 * the first chunk of the answer instead).
 */
export function timedPost(url: string, path: string, body: string, firstFrame = false): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let first = 0;
        res.on('data', () => {
          if (!first) first = performance.now() - started;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(firstFrame ? first : performance.now() - started)
            : reject(new Error(`bench: HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Median per-request latency of `n` sequential requests (after a warm-up), to the end or the first frame. */
export async function latency(
  url: string,
  path: string,
  body: string,
  n: number,
  firstFrame = false,
): Promise<number> {
  for (let i = 0; i < 20; i++) await timedPost(url, path, body);
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await timedPost(url, path, body, firstFrame));
  return median(times);
}

/** Requests per second with CONCURRENCY clients at once. */
async function throughput(url: string, path: string, body: string): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next++ < THROUGHPUT_REQUESTS) await timedPost(url, path, body);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return THROUGHPUT_REQUESTS / ((performance.now() - started) / 1000);
}

/**
 * The baseline: a server that streams the same frames from memory, one awaited write each, as replay
 * does, with no matching. What replay adds on top is its own cost.
 */
export async function directServer(frames: Buffer[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    for (const f of frames) await new Promise((r) => res.write(f, r));
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/**
 * Fingerprints per second of an ~80 KB Chat Completions body, normalized with roots, dates and an id rule.
 * As in a session, each call ends with another prompt while the system prompt and the tools repeat.
 */
function fingerprintRate(): { rate: number; baseline: number; bytes: number } {
  const { path, body } = largeChatRequest(CWD, 'Tuesday, December 1, 2026');
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const bodies = Array.from({ length: 64 }, (_, k) =>
    Buffer.from(
      JSON.stringify({
        ...body,
        messages: [
          ...messages,
          { role: 'user', content: `Prompt ${k}: fix the failing test in ${CWD}/test/module-${k}.ts` },
        ],
      }),
    ),
  );
  let next = 0;
  const nextRaw = () => bodies[next++ % bodies.length]!;
  const raw = bodies[0]!;
  const n = new RequestNormalizer({
    roots: {
      cwd: CWD,
      home: '/tmp/acp-mh-bench0000/home',
      install: '/usr/lib/node_modules/@qwen-code/qwen-code',
    },
    ids: [{ path: 'metadata.user_id', name: 'userId' }],
  });
  const perSec = (fn: () => unknown) => {
    let count = 0;
    const started = performance.now();
    while (performance.now() - started < 1000) {
      fn();
      count++;
    }
    return count / ((performance.now() - started) / 1000);
  };
  const rates: number[] = [];
  const baselines: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const rate = perSec(() => fingerprint(n.request('POST', path, {}, nextRaw())));
    // What no normalizer can go below: parse the body, serialize it, hash it (interleaved, for the load).
    const baseline = perSec(() =>
      createHash('sha256')
        .update(JSON.stringify(JSON.parse(nextRaw().toString())))
        .digest('hex'),
    );
    if (run > 0) {
      rates.push(rate);
      baselines.push(baseline);
    }
  }
  return { rate: median(rates), baseline: median(baselines), bytes: raw.length };
}

export async function run(): Promise<void> {
  const up = await startFakeUpstream({ deltas: DELTAS });
  const path = '/v1/chat/completions';
  const body = JSON.stringify({
    model: 'm',
    stream: true,
    messages: [{ role: 'user', content: `Read ${CWD}/README.md` }],
  });
  const rec = await startModelServer({
    mode: 'record',
    upstream: { baseUrl: up.url },
    normalize: { roots: { cwd: CWD } },
  });
  await timedPost(rec.url, path, body);
  await rec.close();
  // The one recorded exchange, served as often as asked (an exchange per request, all with this body).
  const exchanges: Exchange[] = Array.from(
    { length: 20 + LATENCY_REQUESTS + THROUGHPUT_REQUESTS + 1 },
    () => rec.exchanges[0]!,
  );
  const frames = exchanges[0]!.response.frames;
  if (frames.length !== DELTAS.length + 2)
    throw new Error(`bench: recorded ${frames.length} frames, expected ${DELTAS.length + 2}`);
  await up.close();
  const direct0 = await directServer(frames.map((f) => frameBytes(f)));

  const direct: number[] = [];
  const replayed: number[] = [];
  const rates: number[] = [];
  let framesExact = 1;
  for (let r = 0; r < RUNS; r++) {
    const rep = await startModelServer({ mode: 'replay', exchanges, normalize: { roots: { cwd: CWD } } });
    // Interleaved, so load on the machine hits both alike.
    direct.push(await latency(direct0.url, path, body, LATENCY_REQUESTS));
    replayed.push(await latency(rep.url, path, body, LATENCY_REQUESTS));
    rates.push(await throughput(rep.url, path, body));
    const raw = await rawRequest(rep.url, 'POST', path, body);
    const expected = frames.map((f) => frameBytes(f));
    if (raw.chunks.length !== expected.length || raw.chunks.some((c, i) => !c.equals(expected[i]!)))
      framesExact = 0;
    await rep.close();
  }
  await direct0.close();
  agent.destroy();
  if (!framesExact) throw new Error('bench: replay did not deliver the recorded frames exactly');
  const fp = fingerprintRate();
  writeResults('model-http', {
    framesPerAnswer: frames.length,
    directStreamMs: Number(median(direct).toFixed(3)),
    replayStreamMs: Number(median(replayed).toFixed(3)),
    addedLatencyMs: Number((median(replayed) - median(direct)).toFixed(3)),
    replayRequestsPerSec: Math.round(median(rates)),
    framesExact,
    fingerprintBodyBytes: fp.bytes,
    fingerprintsPerSec: Math.round(fp.rate),
    parseStringifyHashPerSec: Math.round(fp.baseline),
  });
}
