/**
 * Why a replay failed, as a cause that failures of other scenarios can share: the same request part
 * drifted the same way (the system prompt, the tool schemas), the same stdout field changed the same
 * way, the same workspace file. The replay spec attaches a cause to a failing test (an annotation);
 * the summary reporter (summary-reporter.ts) groups them and prints each cause once, with the one
 * command that accepts it.
 */
import {
  clipText,
  firstDifference,
  firstHunk,
  formatPath,
  jsonPointer,
  type ReplayDrift,
} from '@acp-snapshot/core';
import { resolveSystemPrompt, type SessionHeader } from '@acp-snapshot/session-log';
import { diffWordsWithSpace } from 'diff';

/**
 * The annotation type a failing replay test carries its cause under, as JSON for the summary reporter.
 * The leading `_` keeps it out of the HTML report, which shows the readable {@link CAUSE_TEXT} instead.
 */
export const CAUSE_ANNOTATION = '_acp-snapshot-cause';
/** The annotation a reader sees in the HTML report: the cause in words. */
export const CAUSE_TEXT = 'cause';

/** What a cause is about, and so which command accepts it. */
export type CauseKind = 'request' | 'stdout' | 'log' | 'workspace' | 'mcp';

/** The spec project a cause was seen in, as far as the command that accepts it depends on it. */
export interface CauseProject {
  name: string;
  /** The project that re-records its tests' model calls (its `:record` twin), when the config has one. */
  record?: string;
  /** Where its model answers come from: an HTTP exchange log, or a session log the replay plugin serves. */
  model?: 'http' | 'replay' | 'live' | 'none';
}

/** One cause of one failing scenario. */
export interface Cause {
  kind: CauseKind;
  /** Equal for failures with the same cause. */
  key: string;
  /** What a reader sees once in the summary: the change. */
  detail: string;
  /** For a field difference: where (line and JSON path) and the change, for a short per-test message. */
  field?: { line: number; path: string; change: string };
  /**
   * The Playwright project of a spec test that uses the `acp` fixture (absent for a corpus scenario): the command
   * that accepts the cause is that project's (re-record it, or update its snapshots), not the corpus scripts.
   */
  project?: CauseProject;
}

/**
 * The cause of a replay drift, from the data the replay plugin reported (core's `ReplayDrift`): where the
 * request changed and the change itself, never the scenario's context, so one prompt or tool edit shared by
 * many scenarios is one cause. A system-prompt change is the same cause as a header-only log's.
 */
export function driftCause(drift: ReplayDrift): Cause {
  const { recorded, live } = drift;
  if (recorded !== undefined && live !== undefined) {
    if (drift.part === 'system') return headerPromptCause(recorded, live);
    // A JSON value (tool schemas, a tool call, a content block): the field that changed inside it, found by
    // core's differ as the replay plugin and the HTTP model find theirs, so the cause names that field.
    const inner = innerChange(recorded, live);
    const path = inner ? joinPath(drift.path, inner.path) : drift.path;
    const [before, after] = inner ? [inner.recorded, inner.live] : [recorded, live];
    return {
      kind: 'request',
      key: `request ${path}\n${wordChanges(before, after)}`,
      detail: `the model request's ${path} changed: ${changedWords(before, after)}`,
    };
  }
  const shown = live === undefined ? 'it is missing from the live request' : `live ${clipText(live)}`;
  return {
    kind: 'request',
    key: `request ${drift.path}\n${live ?? ''}`,
    detail: `the model request's ${drift.path} changed (the recording does not hold its text): ${shown}`,
  };
}

/** A value inside a drift's texts as text: a string as it is, anything else as JSON ('' when absent). */
const asText = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Where two JSON texts (objects or arrays) first differ, with both values there; undefined for other texts. */
function innerChange(
  recorded: string,
  live: string,
): { path: string; recorded: string; live: string } | undefined {
  const parse = (t: string): unknown => {
    try {
      const v = JSON.parse(t) as unknown;
      return typeof v === 'object' && v !== null ? v : undefined;
    } catch {
      return undefined;
    }
  };
  const [a, b] = [parse(recorded), parse(live)];
  if (a === undefined || b === undefined) return undefined;
  const d = firstDifference(a, b);
  if (!d || d.at.length === 0) return undefined;
  return { path: formatPath(d.at), recorded: asText(d.recorded), live: asText(d.live) };
}

/** `tools` and `[2].description` as `tools[2].description`; `body.x` and `y` as `body.x.y`. */
function joinPath(outer: string, inner: string): string {
  return inner.startsWith('[') ? `${outer}${inner}` : `${outer}.${inner}`;
}

/** The changed words of a system-prompt change: its first hunk's `~` lines. */
function systemChanges(hunk: string): string[] {
  return hunk
    .split('\n')
    .filter((l) => l.trimStart().startsWith('~'))
    .map((l) => l.trim());
}

/** The key of a system-prompt change: the changed words of its first hunk. */
function systemKey(hunk: string): string {
  return `request system\n${systemChanges(hunk).join('\n') || hunk}`;
}

/** The words two texts differ by, without their context: equal for one edit wherever it is made. */
function wordChanges(before: string, after: string): string {
  return diffWordsWithSpace(before, after)
    .filter((p) => p.added || p.removed)
    .map((p) => `${p.added ? '+' : '-'}${p.value}`)
    .join(' ');
}

/**
 * A session header whose system prompt changed, seen in the log (a scenario that calls no model has no
 * request to drift): the same cause as a system-prompt drift of the scenarios that do.
 */
export function headerPromptCause(recorded: string, live: string): Cause {
  const hunk = firstHunk(recorded, live);
  return {
    kind: 'request',
    key: systemKey(hunk),
    detail: `the model request's system changed:\n  the system prompt changed (first hunk):\n${hunk}`,
  };
}

/** The changed words of two texts, `[-old-]{+new+}` with a few characters of context. */
export function changedWords(recorded: string, live: string): string {
  const parts = diffWordsWithSpace(recorded, live);
  const out: string[] = [];
  parts.forEach((p, i) => {
    if (p.added) out.push(`{+${p.value}+}`);
    else if (p.removed) out.push(`[-${p.value}-]`);
    else if (parts[i - 1]?.added || parts[i - 1]?.removed || parts[i + 1]?.added || parts[i + 1]?.removed) {
      const before = i > 0 && (parts[i - 1]!.added || parts[i - 1]!.removed);
      const after = parts[i + 1]?.added || parts[i + 1]?.removed;
      const v = p.value;
      if (v.length <= 24) out.push(v);
      else out.push(`${before ? v.slice(0, 12) : ''}…${after ? v.slice(-12) : ''}`);
    }
  });
  return out.join('');
}

function firstDifferingIndex(a: readonly string[], b: readonly string[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/**
 * The cause of a JSON-lines difference (stdout, or the projected log): the JSON path of the first
 * differing field of the first differing line and its changed words. Volatile numbers (ids) are in
 * the path only as the line's message kind, so one format change in many scenarios is one cause.
 */
export function jsonLinesCause(
  kind: 'stdout' | 'log' | 'mcp',
  expected: string,
  actual: string,
): Cause | undefined {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const i = firstDifferingIndex(a, b);
  if (i < 0) return undefined;
  let left: unknown;
  let right: unknown;
  try {
    left = a[i] ? JSON.parse(a[i]!) : null;
    right = b[i] ? JSON.parse(b[i]!) : null;
  } catch {
    return { kind, key: `${kind} line ${i + 1}`, detail: `${kind} line ${i + 1} differs` };
  }
  if (left === null || right === null || typeof left !== 'object' || typeof right !== 'object') {
    const what = left === null ? 'an extra line' : 'a missing line';
    return { kind, key: `${kind} ${what}`, detail: `${kind}: ${what} at line ${i + 1}` };
  }
  // The first differing field in document order (core's differ, as the drifts find theirs).
  const d = firstDifference(left, right);
  if (!d) return undefined;
  const pointer = jsonPointer(d.at);
  const path = pointer.replace(/\/\d+(?=\/|$)/g, '/*');
  const before = d.recorded;
  const after = d.live;
  const change =
    typeof before === 'string' && typeof after === 'string'
      ? changedWords(before, after)
      : `${JSON.stringify(before) ?? 'nothing'} -> ${JSON.stringify(after) ?? 'nothing'}`;
  // The key holds the changes alone: their context differs from scenario to scenario.
  const changes =
    typeof before === 'string' && typeof after === 'string' ? wordChanges(before, after) : change;
  return {
    kind,
    key: `${kind} ${d.op} ${path} ${changes}`,
    field: { line: i + 1, path: pointer, change },
    detail: `${kind}: ${d.op} at ${path} (first at line ${i + 1}): ${change}`,
  };
}

/** The cause of a workspace difference: which files changed how. */
export function workspaceCause(expected: string | undefined, actual: string): Cause {
  const files = (t: string | undefined) => {
    try {
      return (JSON.parse(t ?? '{}') as { files?: Array<{ path: string; change: string }> }).files ?? [];
    } catch {
      return [];
    }
  };
  const want = new Map(files(expected).map((f) => [f.path, JSON.stringify(f)]));
  const got = new Map(files(actual).map((f) => [f.path, JSON.stringify(f)]));
  const paths = [...new Set([...want.keys(), ...got.keys()])]
    .filter((p) => want.get(p) !== got.get(p))
    .sort();
  return {
    kind: 'workspace',
    key: `workspace ${paths.join(' ')}`,
    detail: `the workspace differs in ${paths.join(', ') || '(its file)'}`,
  };
}

/**
 * The cause of a session-log difference: a changed system prompt in the header (from the sidecars:
 * the committed one and the one this run projected), else the first differing field.
 */
export function logCause(
  expected: string,
  actual: string,
  sidecars: { dir: string; live: Record<string, string> },
): Cause | undefined {
  const header = (text: string) => {
    try {
      const h = JSON.parse(text.slice(0, text.indexOf('\n') >>> 0)) as SessionHeader;
      return h.type === 'session/header' ? h : undefined;
    } catch {
      return undefined;
    }
  };
  const [a, b] = [header(expected), header(actual)];
  if (a && b && JSON.stringify(a.systemPrompt) !== JSON.stringify(b.systemPrompt)) {
    try {
      return headerPromptCause(resolveSystemPrompt(a, sidecars.dir), resolveSystemPrompt(b, sidecars.live));
    } catch {
      // A sidecar that cannot be read: the field difference below still names the change.
    }
  }
  return jsonLinesCause('log', expected, actual);
}

/**
 * A drift message as one failing test shows it: for a system-prompt change (shared by every scenario) the
 * failure's first line and only the changed words; the hunk is printed once, in the run's summary, and in full
 * on stderr. Any other drift as the replay plugin wrote it.
 */
export function perTestDriftText(failure: string, drift: ReplayDrift | undefined): string {
  if (drift?.part !== 'system' || drift.recorded === undefined || drift.live === undefined) return failure;
  return [
    failure.split('\n')[0]!,
    '  the system prompt changed (changed words; the hunk is in the summary at the end of the run, the full diff in stderr.txt):',
    ...systemChanges(firstHunk(drift.recorded, drift.live)).map((l) => `    ${l}`),
  ].join('\n');
}
