/**
 * The contract between the harness, the agent and the replay plugin, defined once: the environment the
 * harness hands an agent, the modes, and the report line the replay plugin writes to stderr for the
 * harness to read. Each side imports these instead of spelling the names again.
 */

/** The variables of the contract (docs/contract.md, "The environment"). */
export const CONTRACT_ENV = {
  mode: 'ACP_SNAPSHOT_MODE',
  scenario: 'ACP_SNAPSHOT_SCENARIO',
  fixture: 'ACP_SNAPSHOT_FIXTURE',
  override: 'ACP_SNAPSHOT_OVERRIDE',
  agentConfig: 'ACP_SNAPSHOT_AGENT_CONFIG',
  persistRoot: 'ACP_SNAPSHOT_PERSIST_ROOT',
  spillRoot: 'ACP_SNAPSHOT_SPILL_ROOT',
  roots: 'ACP_SNAPSHOT_ROOTS',
  sidecars: 'ACP_SNAPSHOT_SIDECARS',
  baseUrl: 'ACP_SNAPSHOT_BASE_URL',
} as const;

/** What the agent runs for: replaying a recording, recording against a model, or re-deriving a recording. */
export type SnapshotMode = 'replay' | 'record' | 'refresh';

/**
 * The replay plugin's stderr lines that the harness reads: its report (JSON) and its failures (text for people).
 * Its other lines, warnings and per-process notes, start with {@link REPLAY_NOTE_PREFIX}, so a reader tells a
 * failure from a note by the prefix, never by the wording.
 */
export const REPLAY_LINE_PREFIX = 'llm-replay: ';

/** A replay plugin line that is not a failure (a warning about the fixture, calls this process did not make). */
export const REPLAY_NOTE_PREFIX = 'llm-replay note: ';

/** The error code of a turn that replay could not serve (drift, an exhausted script), as `turn/end` persists it. */
export const REPLAY_ERROR_CODE = 'replay';

/**
 * Where a live model request first differs from the recorded one, as data (the replay plugin's error text is for
 * people): the harness keys a failure's cause by it, so one prompt change in many scenarios is one cause.
 */
export interface ReplayDrift {
  /** The request part that differs: `system`, `tools`, `model`, `params`, `messages[2]`, `request`. */
  part: string;
  /** Where in the part: `system`, `messages[2].content`, `body.messages[2].content`... */
  path: string;
  /** The recorded text there (roots as placeholders); absent when the recording does not hold it. */
  recorded?: string;
  /** The live text there, roots replaced as in the recording; absent when the live request lacks it. */
  live?: string;
}

/**
 * The replay plugin's report: which recorded calls (numbered from 1) this process has claimed, of how many, and
 * the drift that stopped it, when one did.
 */
export interface ReplayReport {
  scenario: string;
  consumed: number[];
  total: number;
  drift?: ReplayDrift;
}

/** The stderr line of a report. */
export function formatReplayReport(report: ReplayReport): string {
  return `${REPLAY_LINE_PREFIX}${JSON.stringify(report)}`;
}

/** The report a stderr line holds; undefined for any other line (the plugin's errors and warnings). */
export function parseReplayReport(line: string): ReplayReport | undefined {
  if (!line.startsWith(REPLAY_LINE_PREFIX)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.slice(REPLAY_LINE_PREFIX.length));
  } catch {
    return undefined;
  }
  const v = value as Partial<ReplayReport> | null;
  if (!v || !Array.isArray(v.consumed) || typeof v.total !== 'number') return undefined;
  const d = v.drift as Partial<ReplayDrift> | undefined;
  const text = (x: unknown) => (typeof x === 'string' ? x : undefined);
  const drift: ReplayDrift | undefined =
    d && typeof d === 'object' && typeof d.part === 'string'
      ? {
          part: d.part,
          path: text(d.path) ?? d.part,
          ...(text(d.recorded) !== undefined ? { recorded: d.recorded! } : {}),
          ...(text(d.live) !== undefined ? { live: d.live! } : {}),
        }
      : undefined;
  return {
    scenario: typeof v.scenario === 'string' ? v.scenario : '',
    consumed: v.consumed.filter((c): c is number => typeof c === 'number'),
    total: v.total,
    ...(drift ? { drift } : {}),
  };
}
