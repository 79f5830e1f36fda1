/** The outcome of a server's run, structured and as the message a failing test shows. */
import { type Difference, excerpt } from './closest.js';

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
  | { kind: 'record-failed'; call: number; method: string; path: string; reason: string };

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
  const drift = failures.some((f) => f.kind !== 'record-failed');
  if (drift && mode === 'replay')
    lines.push(
      options.fix
        ? `If the agent's requests changed on purpose, re-record: ${options.fix}`
        : "If the agent's requests changed on purpose, re-record the scenario.",
    );
  else if (mode === 'record')
    lines.push('The recording is incomplete: fix the upstream (or its key) and record again.');
  return { ok: false, failures, calls, message: lines.join('\n') };
}
