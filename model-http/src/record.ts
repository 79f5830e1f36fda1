/**
 * Record mode: each request is forwarded to the upstream, its answer streamed back to the agent as it
 * arrives and kept as an exchange (normalized request, status, kept headers, frames). The key comes
 * from the environment variable the options name and is never kept: credentials are dropped from
 * what is stored before anything else happens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CREDENTIAL_HEADERS, CREDENTIAL_QUERY, credentialHeader, wireFormatOf } from '@acp-snapshot/core';
import type { Exchange } from './exchange-log.js';
import type { FaultAnswer } from './faults.js';
import { cutFrames, type Framing, frameBytes, type Received, scrubFrames } from './frames.js';
import { sendError } from './http.js';
import type { NormalizedRequest, RequestNormalizer } from './normalize.js';
import type { Failure } from './verdict.js';

export interface Upstream {
  /** Where requests go: `baseUrl` + the request's path (and query). */
  baseUrl: string;
  /** The environment variable holding the upstream's key, sent in the format's auth header; else the agent's own. */
  apiKeyEnv?: string;
  /** Extra headers sent upstream (not stored). */
  headers?: Record<string, string>;
}

export interface RecordContext {
  upstream?: Upstream;
  env: NodeJS.ProcessEnv;
  normalizer: RequestNormalizer;
  framing: Framing;
  timing: boolean;
  responseHeaders: readonly string[];
  /** Exchanges by arrival slot (undefined: still running, or failed). */
  slots: Array<Exchange | undefined>;
  failures: Failure[];
}

// Not forwarded: hop-by-hop, recomputed, or chosen by us (identity, so frames are the bytes the model sent).
const DROPPED = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'keep-alive',
  'upgrade',
  'expect',
]);

function forwardHeaders(req: IncomingMessage, ctx: RecordContext, key: string | undefined): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    const n = name.toLowerCase();
    if (value === undefined || DROPPED.has(n) || (key !== undefined && CREDENTIAL_HEADERS.has(n))) continue;
    out.set(n, Array.isArray(value) ? value.join(', ') : value);
  }
  out.set('accept-encoding', 'identity');
  for (const [n, v] of Object.entries(ctx.upstream?.headers ?? {})) out.set(n, v);
  if (key !== undefined) out.set(...credentialHeader(wireFormatOf(req.url ?? '/'), key));
  return out;
}

function upstreamUrl(baseUrl: string, path: string, dropKey: boolean): string {
  const base = baseUrl.replace(/\/+$/, '');
  const url = new URL(base + path);
  if (dropKey)
    for (const name of [...url.searchParams.keys()])
      if (CREDENTIAL_QUERY.has(name.toLowerCase())) url.searchParams.delete(name);
  return url.href;
}

/** Sends the request upstream, with the key (when the options name one) in the format's header. */
function forward(
  req: IncomingMessage,
  body: Buffer,
  request: NormalizedRequest,
  ctx: RecordContext,
  upstream: Upstream,
  key: string | undefined,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(upstreamUrl(upstream.baseUrl, req.url ?? '/', key !== undefined), {
    method: request.method,
    headers: forwardHeaders(req, ctx, key),
    body:
      request.method === 'GET' || request.method === 'HEAD' || body.length === 0
        ? undefined
        : Uint8Array.from(body),
    redirect: 'manual',
    ...(signal ? { signal } : {}),
  });
}

/**
 * The upstream's whole answer to a request, cut into frames and not recorded: in record mode a fault serves
 * from it in the call's place (the agent's retry is recorded). Undefined when the upstream cannot answer.
 */
export async function upstreamAnswer(
  req: IncomingMessage,
  body: Buffer,
  request: NormalizedRequest,
  ctx: RecordContext,
): Promise<FaultAnswer | undefined> {
  const { upstream } = ctx;
  const key = upstream?.apiKeyEnv ? ctx.env[upstream.apiKeyEnv] : undefined;
  if (!upstream || (upstream.apiKeyEnv && !key)) return undefined;
  try {
    const res = await forward(req, body, request, ctx, upstream, key);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const stream = (res.headers.get('content-type') ?? '').includes('text/event-stream');
    const headers: Record<string, string> = {};
    for (const name of ctx.responseHeaders) {
      const v = res.headers.get(name);
      if (v !== null) headers[name] = v;
    }
    const frames = cutFrames([{ bytes, atMs: 0 }], 'events', stream, false);
    return { status: res.status, headers, bodies: frames.map(frameBytes) };
  } catch {
    return undefined;
  }
}

/** Forwards one request and keeps its exchange in `ctx.slots[slot]`. */
export async function recordOne(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  request: NormalizedRequest,
  call: number,
  ctx: RecordContext,
): Promise<void> {
  const started = performance.now();
  const path = req.url ?? '/';
  const fail = (status: number, reason: string) => {
    ctx.failures.push({ kind: 'record-failed', call, method: request.method, path: request.path, reason });
    sendError(res, path, status, 'record-failed', reason);
  };
  if (!ctx.upstream) return fail(502, 'no upstream is configured (options.upstream.baseUrl)');
  let key: string | undefined;
  if (ctx.upstream.apiKeyEnv) {
    key = ctx.env[ctx.upstream.apiKeyEnv];
    if (!key)
      return fail(
        502,
        `the upstream key variable ${ctx.upstream.apiKeyEnv} is not set; export it and record again`,
      );
  }
  const abort = new AbortController();
  let clientClosed = false;
  res.once('close', () => {
    if (!res.writableFinished) {
      clientClosed = true;
      abort.abort();
    }
  });
  let upstream: Response;
  const url = upstreamUrl(ctx.upstream.baseUrl, path, key !== undefined);
  try {
    upstream = await forward(req, body, request, ctx, ctx.upstream, key, abort.signal);
  } catch (e) {
    if (clientClosed) return;
    return fail(502, `could not reach the upstream ${new URL(url).origin}: ${causeOf(e)}`);
  }
  const headers: Record<string, string> = {};
  for (const name of ctx.responseHeaders) {
    const v = upstream.headers.get(name);
    if (v !== null) headers[name.toLowerCase()] = v;
  }
  res.writeHead(upstream.status, headers);
  res.flushHeaders();
  const reads: Received[] = [];
  let aborted = false;
  try {
    const reader = upstream.body?.getReader();
    for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) {
      reads.push({ bytes: r.value, atMs: Math.round(performance.now() - started) });
      res.write(r.value);
    }
  } catch (e) {
    if (!clientClosed) {
      ctx.failures.push({
        kind: 'record-failed',
        call,
        method: request.method,
        path: request.path,
        reason: `the upstream's answer broke off after ${reads.reduce((n, r) => n + r.bytes.length, 0)} bytes: ${causeOf(e)}`,
      });
      res.destroy();
      return;
    }
    aborted = true;
  }
  if (clientClosed) aborted = true;
  // Only SSE has event boundaries to cut at; any other body is kept whole (or as received).
  const stream = (upstream.headers.get('content-type') ?? '').includes('text/event-stream');
  const frames = scrubFrames(cutFrames(reads, ctx.framing, stream, ctx.timing), ctx.normalizer.replacer);
  ctx.slots[call - 1] = {
    request,
    response: { status: upstream.status, headers, frames, ...(aborted ? { aborted: true } : {}) },
  };
  if (!res.writableEnded && !res.destroyed) res.end();
}

function causeOf(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.cause?.message ?? err.message;
}
