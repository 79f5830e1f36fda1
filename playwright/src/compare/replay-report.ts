/**
 * What replay reported about a run's model calls: the replay plugin's report lines and errors on the agents'
 * stderr, unioned over every agent process, and the failure messages they make (drift, calls left unused).
 */
import {
  parseReplayReport,
  REPLAY_ERROR_CODE,
  REPLAY_LINE_PREFIX,
  type ReplayDrift,
  type ReplayReport,
  refreshCommand,
} from '@acp-snapshot/core';
import { recordedModelCalls } from './harvest.js';

/** What the replay plugin reported over all agent processes of a run: the calls claimed, of how many. */
export type UnionReport = Pick<ReplayReport, 'consumed' | 'total'>;

/** Unions the replay reports of all agent processes of a run; undefined when no process reported. */
export function unionReplayReports(stderr: readonly string[]): UnionReport | undefined {
  let found = false;
  const consumed = new Set<number>();
  let total = 0;
  for (const text of stderr) {
    for (const line of text.split('\n')) {
      const report = parseReplayReport(line);
      if (!report) continue;
      found = true;
      for (const c of report.consumed) consumed.add(c);
      total = Math.max(total, report.total);
    }
  }
  return found ? { consumed: [...consumed].sort((a, b) => a - b), total } : undefined;
}

/** The first request drift a replay report of the run's agent processes carries (the cause of its failure). */
export function replayDrift(stderr: readonly string[]): ReplayDrift | undefined {
  for (const text of stderr)
    for (const line of text.split('\n')) {
      const drift = parseReplayReport(line)?.drift;
      if (drift) return drift;
    }
  return undefined;
}

/** The "calls left unused" failure message, or undefined when every recorded model call was served. */
export function unusedCallsProblem(
  name: string,
  report: UnionReport | undefined,
  recordedCalls: number,
): string | undefined {
  if (!report) {
    return recordedCalls > 0
      ? `${name}: session.jsonl holds ${recordedCalls} model call(s) but no agent process printed an "llm-replay:" report on stderr (is the agent running with the replay overlay?)`
      : undefined;
  }
  const unused: number[] = [];
  for (let n = 1; n <= report.total; n++) if (!report.consumed.includes(n)) unused.push(n);
  if (unused.length === 0) return undefined;
  return `${name}: ${unused.length} of ${report.total} recorded model call(s) were never requested (unused calls: ${unused.join(', ')}, numbered from 1). The agent now makes fewer model calls than the recording; if that is intended, run \`${refreshCommand(name)}\`.`;
}

/**
 * The "calls left unused" problem of a replayed run, from its agents' stderr and the session log text it
 * replayed (`file` names it in parse errors); undefined when every recorded model call was served.
 */
export function unusedRecordedCalls(
  name: string,
  stderr: readonly string[],
  expectedLog: string | undefined,
  file?: string,
): string | undefined {
  return unusedCallsProblem(
    name,
    unionReplayReports(stderr),
    expectedLog ? recordedModelCalls(expectedLog, file) : 0,
  );
}

/** Lines the replay plugin wrote to stderr other than its final report: its errors (drift, exhausted script...). */
export function replayErrors(stderr: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of stderr.flatMap((t) => t.split('\n'))) {
    if (!line.startsWith(REPLAY_LINE_PREFIX)) continue;
    // Notes (warnings, calls one process did not make) have a prefix of their own: the harness judges
    // unused calls over all processes of the scenario.
    if (parseReplayReport(line) === undefined) out.push(line.slice(REPLAY_LINE_PREFIX.length));
  }
  return out;
}

/**
 * Why replay could not serve the agent (request drift, exhausted script...): llm-replay lines on
 * stderr and turns the log ended with a replay error.
 */
export function replayFailures(
  stderr: readonly string[],
  records: ReadonlyArray<{ event: { type: string } }>,
): string[] {
  const out = replayErrors(stderr);
  if (out.length > 0) return out;
  for (const r of records) {
    const e = r.event as { type: string; kind?: string; error?: { message: string; code?: string } };
    if (e.type !== 'turn/end' || e.kind !== 'error' || !e.error) continue;
    if (e.error.code === REPLAY_ERROR_CODE) out.push(e.error.message);
  }
  return out;
}

/** The failure message of a scenario whose model calls replay could not serve (drift, exhausted script...). */
export function replayFailureMessage(name: string, failures: readonly string[], step?: string): string {
  const hint = `${refreshCommand(name)}`;
  const text = failures.join('\n');
  return (
    `${name}: replay could not serve the agent's model calls from the recording${step ? ` (${step} failed)` : ''}:\n${text}` +
    (text.includes(hint) ? '' : `\nIf the change is intended, run \`${hint}\`.`)
  );
}
