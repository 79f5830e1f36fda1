/**
 * The model record/replay server: one per test, on an ephemeral loopback port, pointed at by the agent's
 * base-URL variable. `HEAD` (claude's preflight) is answered here in every mode; every other request is
 * recorded (forwarded to the upstream) or replayed (served from the exchanges), format-blind; in `missing`
 * mode replayed when an unused recorded exchange has it, else recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamsAnswer, wireFormatOf } from '@acp-snapshot/core';
import type { Exchange } from './exchange-log.js';
import { FaultPlan, type ModelFault, serveFault } from './faults.js';
import type { Framing } from './frames.js';
import { readBody, sendError } from './http.js';
import { type NormalizeOptions, RequestNormalizer } from './normalize.js';
import { type RecordContext, recordOne, type Upstream, upstreamAnswer } from './record.js';
import { isRecorded, type ReplayContext, recordedAnswer, replayContext, replayOne } from './replay.js';
import { type Failure, makeVerdict, type Verdict, type VerdictOptions } from './verdict.js';

export interface ModelServerOptions {
  /**
   * `replay`: the exchanges only, keyless. `record`: every request forwarded to the upstream. `missing`: a
   * request an unused recorded exchange has is served from it, any other forwarded and recorded.
   */
  mode: 'record' | 'replay' | 'missing';
  /** Replay and missing: the recorded exchanges (from {@link readExchangeLog}). */
  exchanges?: readonly Exchange[];
  /** Record and missing: where requests are forwarded. */
  upstream?: Upstream;
  /** What of a request is volatile (roots, dates, ids, headers); the same options in record and replay. */
  normalize?: NormalizeOptions;
  /** Replay: recorded exchanges that may go unused (background calls). */
  optional?: (exchange: Exchange, index: number) => boolean;
  /** Record: keep each frame's arrival time; replay: serve frames at their recorded times. Default 'none'. */
  timing?: 'none' | 'recorded';
  /** Record: cut a stream at SSE event ends (default) or keep the reads as they arrived. */
  framing?: Framing;
  /** Response headers kept and served (lower-case); default `content-type`. */
  responseHeaders?: readonly string[];
  /** Status of the answer to a request replay cannot match (default 400: SDKs do not retry it). */
  unmatchedStatus?: number;
  /** Defaults for {@link ModelServer.verdict}: the re-record command and the log file to name. */
  verdict?: VerdictOptions;
  /** Where `upstream.apiKeyEnv` is read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Provider faults, each in place of the call(s) it matches (see {@link ModelFault}); more with `fault()`. */
  faults?: readonly ModelFault[];
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  /**
   * Record: the exchanges completed so far, in arrival order; replay: the recorded ones; missing: the
   * recorded ones served (or `optional`), then those recorded now (what a `missing` re-record writes).
   */
  readonly exchanges: Exchange[];
  /** Model requests received so far (a `HEAD` preflight is not one). */
  readonly calls: number;
  /** Of those, the ones a fault answered in place of the model (a `delay` is not one: it serves the answer). */
  readonly faulted: number;
  /** Stops listening and closes every connection (held-open cancelled streams too). */
  close(): Promise<void>;
  /** Declares one more fault, for the calls still to come (a bad one throws, naming its field). */
  fault(fault: ModelFault): void;
  /**
   * Ok, or the failures: unmatched and unused exchanges (replay), requests not recorded (record), faults
   * that never fired.
   */
  verdict(options?: VerdictOptions): Verdict;
  /**
   * Replay: whether a recorded exchange (not an optional one) still waits for its request while every request
   * so far matched one: an agent's call after its turn is yet to come. Cheap enough to poll.
   */
  awaitingCalls(): boolean;
}

/** Starts a record or replay server on 127.0.0.1 and an ephemeral port. */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  if (options.mode !== 'replay' && options.upstream && !isHttpUrl(options.upstream.baseUrl))
    throw new Error(
      `model-http: upstream.baseUrl ${JSON.stringify(options.upstream.baseUrl)} is not an absolute http(s) URL; give the model's origin, e.g. http://127.0.0.1:8080`,
    );
  // The upstream key never reaches the log: not in a header (dropped) nor in a body an agent echoed it into.
  const key = options.upstream?.apiKeyEnv
    ? (options.env ?? process.env)[options.upstream.apiKeyEnv]
    : undefined;
  const given = options.normalize?.credentials?.values ?? [];
  const normalizer = new RequestNormalizer(
    key ? { ...options.normalize, credentials: { values: [...given, key] } } : options.normalize,
  );
  const failures: Failure[] = [];
  const faults = new FaultPlan(options.faults ?? [], 'startModelServer: options.faults');
  const timing = options.timing === 'recorded';
  let calls = 0;
  let faulted = 0;
  let record: RecordContext | undefined;
  let replay: ReplayContext | undefined;
  if (options.mode !== 'replay') {
    record = {
      upstream: options.upstream,
      env: options.env ?? process.env,
      normalizer,
      framing: options.framing ?? 'events',
      timing,
      responseHeaders: (options.responseHeaders ?? ['content-type']).map((h) => h.toLowerCase()),
      slots: [],
      failures,
    };
  }
  if (options.mode !== 'record') {
    if (!options.exchanges)
      throw new Error(`startModelServer: ${options.mode} needs \`exchanges\` (see readExchangeLog)`);
    replay = replayContext(options.exchanges, normalizer, timing, options.unmatchedStatus ?? 400, failures);
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': 0 });
      res.end();
      return;
    }
    const body = await readBody(req);
    const call = ++calls;
    const path = req.url ?? '/';
    const request = normalizer.request(req.method ?? 'GET', path, req.headers, body);
    const json = parseJson(body);
    const fault = faults.take({ call, method: request.method, path, body: json });
    // Replay, or missing mode with the request in the log: served from the log; else from the upstream.
    const fromLog = replay !== undefined && (!record || isRecorded(replay, request));
    if (fault && fault.kind !== 'delay') {
      faulted++;
      const answer =
        fault.kind === 'status'
          ? undefined
          : fromLog
            ? recordedAnswer(replay!, request)
            : await upstreamAnswer(req, body, request, record!);
      return serveFault(
        res,
        fault,
        wireFormatOf(path),
        streamsAnswer(wireFormatOf(path), path, json),
        answer,
      );
    }
    // Record forwards at the upstream's own pace: a delay fault paces replay only.
    if (fromLog) await replayOne(res, request, call, replay!, fault?.intervalMs);
    else await recordOne(req, res, body, request, call, record!);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: Error) =>
      sendError(res, req.url ?? '/', 500, 'internal', e.stack ?? e.message),
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get calls() {
      return calls;
    },
    get faulted() {
      return faulted;
    },
    get exchanges() {
      const recorded = record ? record.slots.filter((x): x is Exchange => x !== undefined) : [];
      if (!replay) return recorded;
      if (!record) return [...replay.exchanges];
      const kept = replay.exchanges.filter((ex, i) => replay!.used[i] || options.optional?.(ex, i));
      return [...kept, ...recorded];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    fault: (fault) => faults.add(fault, 'fault()'),
    verdict(extra?: VerdictOptions) {
      const all: Failure[] = [...failures];
      // Missing mode removes what nothing asked for (the log's changes say which): no failure.
      if (replay && !record) {
        replay.used.forEach((used, index) => {
          const ex = replay!.exchanges[index]!;
          if (!used && !options.optional?.(ex, index))
            all.push({ kind: 'unused', index, method: ex.request.method, path: ex.request.path });
        });
      }
      all.push(...faults.unfired());
      const mode = options.mode === 'replay' ? 'replay' : 'record';
      return makeVerdict(all, calls, mode, { ...options.verdict, ...extra });
    },
    awaitingCalls() {
      if (!replay || record || failures.some((f) => f.kind === 'unmatched')) return false;
      return replay.used.some((used, i) => !used && !options.optional?.(replay!.exchanges[i]!, i));
    },
  };
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** An absolute http(s) URL (`localhost:8080` parses, as scheme `localhost:`, but names no server). */
function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
