/**
 * Replay mode: a live request is matched by the fingerprint of its normalized form, never by position,
 * so call order may vary, sessions may run at once, and identical requests (retries) take the recorded
 * exchanges with that body in recorded order. The match's frames are written one by one, hydrated with
 * this run's roots, optionally at their recorded times. No match: an error answer at once and a failure
 * naming the closest recorded request and where it differs.
 */
import type { ServerResponse } from 'node:http';
import { closest } from './closest.js';
import type { Exchange } from './exchange-log.js';
import type { FaultAnswer } from './faults.js';
import { frameBytes, hydrateFrame } from './frames.js';
import { clientGone, sendError, writeFrame } from './http.js';
import { fingerprint, type NormalizedRequest, type RequestNormalizer } from './normalize.js';
import type { Failure } from './verdict.js';

export interface ReplayContext {
  exchanges: readonly Exchange[];
  normalizer: RequestNormalizer;
  timing: boolean;
  unmatchedStatus: number;
  failures: Failure[];
  /** Per recorded exchange: served yet. */
  used: boolean[];
  /** The recorded requests with the id rules in force now applied (see RequestNormalizer.recorded). */
  requests: NormalizedRequest[];
  /** fingerprint -> indices of the recorded exchanges with that request, in recorded order. */
  byFingerprint: Map<string, number[]>;
}

export function replayContext(
  exchanges: readonly Exchange[],
  normalizer: RequestNormalizer,
  timing: boolean,
  unmatchedStatus: number,
  failures: Failure[],
): ReplayContext {
  const byFingerprint = new Map<string, number[]>();
  // A rule added since the recording (a kernel version in a system prompt) applies to what was recorded too.
  const requests = exchanges.map((ex) => normalizer.recorded(ex.request));
  requests.forEach((request, i) => {
    const fp = fingerprint(request);
    byFingerprint.set(fp, [...(byFingerprint.get(fp) ?? []), i]);
  });
  return {
    exchanges,
    normalizer,
    timing,
    unmatchedStatus,
    failures,
    used: exchanges.map(() => false),
    requests,
    byFingerprint,
  };
}

/** Whether an unused recorded exchange has this request (`missing` mode serves it; else it goes upstream). */
export function isRecorded(ctx: ReplayContext, request: NormalizedRequest): boolean {
  return (ctx.byFingerprint.get(fingerprint(request)) ?? []).some((i) => !ctx.used[i]);
}

/** The recorded exchange a live request takes (marked used at once, so concurrent twins take different ones). */
function take(ctx: ReplayContext, request: NormalizedRequest, call: number): Exchange | undefined {
  const fp = fingerprint(request);
  const same = ctx.byFingerprint.get(fp) ?? [];
  const index = same.find((i) => !ctx.used[i]);
  if (index !== undefined) {
    ctx.used[index] = true;
    return ctx.exchanges[index];
  }
  const failure: Failure = {
    kind: 'unmatched',
    call,
    method: request.method,
    path: request.path,
    fingerprint: fp,
  };
  if (same.length) failure.exhausted = same.length;
  else {
    const near = closest(
      request,
      ctx.requests.map((r, i) => ({ index: i, request: r })),
    );
    if (near) failure.closest = near;
  }
  ctx.failures.push(failure);
  return undefined;
}

/**
 * The recorded answer a live request would take, without taking it (a fault serves from it in its place,
 * and the agent's retry still gets it).
 */
export function recordedAnswer(ctx: ReplayContext, request: NormalizedRequest): FaultAnswer | undefined {
  const index = (ctx.byFingerprint.get(fingerprint(request)) ?? []).find((i) => !ctx.used[i]);
  if (index === undefined) return undefined;
  const { status, headers, frames } = ctx.exchanges[index]!.response;
  return {
    status,
    headers,
    bodies: frames.map((f) => frameBytes(hydrateFrame(f, ctx.normalizer.hydration))),
  };
}

function at(started: number, atMs: number | undefined): Promise<void> {
  const wait = atMs === undefined ? 0 : started + atMs - performance.now();
  return wait > 0 ? new Promise((r) => setTimeout(r, wait)) : Promise.resolve();
}

/** Serves one live request from the recording; with `intervalMs` (a delay fault) one frame per interval. */
export async function replayOne(
  res: ServerResponse,
  request: NormalizedRequest,
  call: number,
  ctx: ReplayContext,
  intervalMs?: number,
): Promise<void> {
  const started = performance.now();
  const ex = take(ctx, request, call);
  if (!ex) {
    const f = ctx.failures[ctx.failures.length - 1] as Extract<Failure, { kind: 'unmatched' }>;
    const where = f.closest?.difference
      ? `; closest recorded request differs at ${f.closest.difference.path}`
      : '';
    const what = f.exhausted
      ? 'this request was already served as often as it was recorded'
      : `no recorded exchange matches${where}`;
    return sendError(
      res,
      request.path,
      ctx.unmatchedStatus,
      'replay-mismatch',
      `replay: call ${call} (${request.method} ${request.path}): ${what}`,
    );
  }
  const { status, headers, frames, aborted } = ex.response;
  const bodies = frames.map((f) => frameBytes(hydrateFrame(f, ctx.normalizer.hydration)));
  // One frame (a plain JSON answer) is sent with its length; a stream goes out chunked, a frame per write.
  res.writeHead(
    status,
    bodies.length === 1 && !aborted ? { ...headers, 'content-length': bodies[0]!.length } : headers,
  );
  if (bodies.length !== 1) res.flushHeaders();
  for (let i = 0; i < bodies.length; i++) {
    if (intervalMs !== undefined) await new Promise((r) => setTimeout(r, intervalMs));
    else if (ctx.timing) await at(started, frames[i]!.atMs);
    if (!(await writeFrame(res, bodies[i]!))) return;
  }
  if (aborted) await clientGone(res);
  else res.end();
}
