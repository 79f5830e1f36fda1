/** The outcome of a server's run, structured and as the message a failing test shows. */
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
      /** The closest recorded exchange (0-based index in the log), and where it differs. */
      closest?: { index: number; difference?: Difference };
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
}

export interface VerdictOptions {
  /** The command that re-records the scenario, quoted in the message (the caller knows its name). */
  fix?: string;
  /** The exchange log file, named in the message. */
  file?: string;
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
      return [
        `${head}; closest is exchange ${f.closest.index}, first differing at ${d.path} (${d.operations} difference(s) in all):`,
        `    recorded: ${excerpt(d.recorded, d.live)}`,
        `    live:     ${excerpt(d.live, d.recorded)}`,
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
  for (const f of failures) lines.push(`  - ${describe(f)}`);
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
  return { ok: false, failures, calls, message: lines.join('\n') };
}
