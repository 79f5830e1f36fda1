/** The outcome of a server's run, structured and as the message a failing test shows. */
import type { PathSegment, ReplayDrift } from '@acp-snapshot/core';
import { CONVERSATION_KEYS } from './canonical-order.js';
import { type Difference, excerpt } from './closest.js';
import type { UnfiredFault } from './faults.js';

export type Failure =
  /** Replay: a live request no unused recorded exchange matches. */
  | {
      kind: 'unmatched';
      /** 1-based, in the order the live requests arrived. */
      call: number;
      method: string;
      path: string;
      fingerprint: string;
      /**
       * The closest recorded exchange (0-based index in the log), and where it differs; `tied`: others
       * just as close (the same count of differences, place in the conversation and shape).
       */
      closest?: {
        index: number;
        difference?: Difference;
        tied?: Array<{ index: number; difference?: Difference }>;
      };
      /** Recorded exchanges with this very request, all served already (a retry the recording did not have). */
      exhausted?: number;
    }
  /** Replay: a recorded exchange no live request used (and no `optional` matcher excuses). */
  | { kind: 'unused'; index: number; method: string; path: string }
  /** Record: a request that could not be forwarded, or whose answer broke off. */
  | { kind: 'record-failed'; call: number; method: string; path: string; reason: string }
  /** A declared fault that took fewer calls than declared. */
  | UnfiredFault;

export interface Verdict {
  ok: boolean;
  failures: Failure[];
  /** Live requests seen, exchanges served (replay) or recorded (record). */
  calls: number;
  /** A multi-line message for a test failure; empty when ok. */
  message: string;
  /**
   * Replay: where the first live request that matched nothing differs from the recorded one it was meant to be,
   * as data (core's `ReplayDrift`, the shape llm-replay reports), so the harness keys the failure's cause by the
   * change itself and one prompt edit that breaks many tests is one cause.
   */
  drift?: ReplayDrift;
}

export interface VerdictOptions {
  /** The command that re-records the scenario, quoted in the message (the caller knows its name). */
  fix?: string;
  /** The exchange log file, named in the message. */
  file?: string;
}

/** A recorded exchange near a live request: where they first differ, both values on lines of their own. */
function near(index: number, d: Difference, indent: string): string {
  return [
    `exchange ${index}, first differing at ${d.path} (${d.operations} difference(s) in all):`,
    `${indent}recorded: ${excerpt(d.recorded, d.live)}`,
    `${indent}live:     ${excerpt(d.live, d.recorded)}`,
  ].join('\n');
}

function describe(f: Failure): string {
  switch (f.kind) {
    case 'unmatched': {
      const head = `call ${f.call} (${f.method} ${f.path}) matches no recorded exchange`;
      if (f.exhausted)
        return `${head}: the ${f.exhausted} recorded exchange(s) with this exact request were all served already (the agent sent it more often than when recorded)`;
      if (!f.closest) return `${head}: nothing was recorded`;
      const d = f.closest.difference;
      if (!d) return `${head}: closest is exchange ${f.closest.index}, which is identical (already served)`;
      if (!f.closest.tied?.length) return `${head}; closest is ${near(f.closest.index, d, '    ')}`;
      const all = [f.closest, ...f.closest.tied];
      return [
        `${head}; closest are exchanges ${all.map((n) => n.index).join(' and ')}, equally near:`,
        ...all.map((n) => `    ${near(n.index, n.difference!, '      ')}`),
      ].join('\n');
    }
    case 'unused':
      return `exchange ${f.index} (${f.method} ${f.path}) was recorded but never requested`;
    case 'record-failed':
      return `call ${f.call} (${f.method} ${f.path}) could not be recorded: ${f.reason}`;
    case 'fault-unfired':
      return [
        `${f.fault} never fired${f.fired ? ` more than ${f.fired} of ${f.times} times` : ''}; the model calls made:${f.calls.length ? '' : ' none'}`,
        ...f.calls.map((c) => `    ${c}`),
      ].join('\n');
  }
}

type Unmatched = Extract<Failure, { kind: 'unmatched' }>;

/**
 * One change, one message: the earliest unmatched call is the cause; the agent's retries of it, the calls
 * that came after it and the recorded exchanges left unused are its consequences. Undefined when there
 * is nothing to chain (no drift, or a drift alone), or when a recording failed (each failure is its own).
 */
function driftChain(failures: Failure[]): { cause: Unmatched; consequences: Failure[] } | undefined {
  if (failures.some((f) => f.kind === 'record-failed')) return undefined;
  const unmatched = failures
    .filter((f): f is Unmatched => f.kind === 'unmatched')
    .sort((a, b) => a.call - b.call);
  const cause = unmatched[0];
  if (!cause || failures.length < 2) return undefined;
  return { cause, consequences: [...unmatched.slice(1), ...failures.filter((f) => f.kind !== 'unmatched')] };
}

/** A consequence of the first drift, on one line; `chain` is the cause, then the consequences. */
function consequence(f: Failure, chain: Failure[]): string {
  if (f.kind !== 'unmatched') return describe(f);
  const head = `call ${f.call} (${f.method} ${f.path})`;
  const first = chain.find((c) => c.kind === 'unmatched' && c.fingerprint === f.fingerprint) as Unmatched;
  if (first !== f) return `${head}: a retry of call ${first.call}, the same request`;
  const d = f.closest?.difference;
  if (f.exhausted) return `${head}: a request already served as often as recorded`;
  if (!d) return `${head}: matches no recorded exchange`;
  return `${head}: matches no recorded exchange either (closest, exchange ${f.closest!.index}, differs at ${d.path}; ${d.operations} difference(s) in all)`;
}

/**
 * The request part a difference is in, from its path's segments: `system`, `tools`, `model`, `messages[2]`,
 * `path`, `headers`. A conversation's message is its own part (as llm-replay names it); any other list is one.
 */
export function requestPart(at: readonly PathSegment[]): string {
  const [head, key, index] = at;
  if (head !== 'body') return head === undefined ? 'request' : String(head);
  if (key === undefined) return 'body';
  const conversation = (CONVERSATION_KEYS as readonly unknown[]).includes(key);
  return conversation && typeof index === 'number' ? `${key}[${index}]` : String(key);
}

/** A recorded or live value as the text a drift carries: strings as they are, anything else as JSON. */
function driftText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The drift of the earliest live request that matched nothing and has a recorded request near it. */
function firstDrift(failures: readonly Failure[]): ReplayDrift | undefined {
  const first = failures
    .filter((f): f is Unmatched => f.kind === 'unmatched' && f.closest?.difference !== undefined)
    .sort((a, b) => a.call - b.call)[0];
  const d = first?.closest?.difference;
  if (!d) return undefined;
  const recorded = driftText(d.recorded);
  const live = driftText(d.live);
  return {
    part: requestPart(d.at),
    path: d.path,
    ...(recorded !== undefined ? { recorded } : {}),
    ...(live !== undefined ? { live } : {}),
  };
}

/** The verdict of a list of failures. */
export function makeVerdict(
  failures: Failure[],
  calls: number,
  mode: 'record' | 'replay',
  options: VerdictOptions = {},
): Verdict {
  if (failures.length === 0) return { ok: true, failures, calls, message: '' };
  const where = options.file ? ` (${options.file})` : '';
  const lines = [`model-http ${mode}${where}: ${failures.length} problem(s) in ${calls} model call(s):`];
  // A declared fault that never fired is a problem of its own, never a consequence of a drift.
  const unfired = failures.filter((f) => f.kind === 'fault-unfired');
  const chain = driftChain(failures.filter((f) => f.kind !== 'fault-unfired'));
  if (chain) {
    const { cause, consequences } = chain;
    lines[0] = `model-http ${mode}${where}: one drift and ${consequences.length} consequence(s) of it, in ${calls} model call(s):`;
    lines.push(`  - ${describe(cause)}`);
    lines.push(`  Then, following from call ${cause.call}:`);
    for (const c of consequences) lines.push(`  - ${consequence(c, [cause, ...consequences])}`);
    for (const f of unfired) lines.push(`  - ${describe(f)}`);
  } else for (const f of failures) lines.push(`  - ${describe(f)}`);
  const drift = failures.some((f) => f.kind === 'unmatched' || f.kind === 'unused');
  if (drift && mode === 'replay')
    lines.push(
      options.fix
        ? `If the agent's requests changed on purpose, re-record: ${options.fix}`
        : "If the agent's requests changed on purpose, re-record the scenario.",
    );
  else if (mode === 'record' && failures.some((f) => f.kind === 'record-failed'))
    lines.push('The recording is incomplete: fix the upstream (or its key) and record again.');
  if (failures.some((f) => f.kind === 'fault-unfired'))
    lines.push(
      'A declared fault must take the calls it names: compare its call, path, body or lastUserMessage with the calls made, or remove it.',
    );
  const found = mode === 'replay' ? firstDrift(failures) : undefined;
  return { ok: false, failures, calls, message: lines.join('\n'), ...(found ? { drift: found } : {}) };
}
