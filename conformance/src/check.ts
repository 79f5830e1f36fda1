/** The shape of one conformance check, what it may ask of a target, and how it reports. */
import type { AgentConnection } from './wire.js';

/**
 * What the model should do in one prompt turn a check runs. Agents that call no model ignore it; a
 * target backed by a model emulator scripts the emulator from it.
 * - simple: answer with a short text;
 * - slow: start answering, then stall until the turn is cancelled;
 * - permission: call a tool that needs the user's permission (a file write), then answer;
 * - file: call a tool that reads a file in the workspace, then answer.
 */
export type TurnKind = 'simple' | 'slow' | 'permission' | 'file';

/**
 * How binding a check's requirement is: `mandatory` (a MUST of the spec or JSON-RPC that applies to every
 * agent), `capability` (applies only to what the agent declares or returns; skipped otherwise),
 * `advisory` (a SHOULD, or a robustness expectation the spec implies without requiring it).
 */
export type CheckLevel = 'mandatory' | 'capability' | 'advisory';

/** Result status of a check. */
export type CheckStatus = 'pass' | 'fail' | 'skip';

/** Timeouts every wait in a check is bounded by (ms). */
export interface Timeouts {
  /** A response to a request that needs no model turn. */
  request: number;
  /** A whole prompt turn. */
  turn: number;
  /** The agent exiting after stdin closes. */
  exit: number;
  /** How long a cancel check waits for a sign of progress before it cancels anyway. */
  progress: number;
}

/** Default timeouts (generous for slow agents; every wait is a condition with a deadline). */
export const DEFAULT_TIMEOUTS: Timeouts = { request: 10_000, turn: 30_000, exit: 5_000, progress: 5_000 };

/**
 * Every deadline multiplied by `scale` (a loaded machine or a slow agent: qwen's initialize took 14 s
 * under load against a 10 s deadline). Throws on a scale that is not a positive number.
 */
export function scaleTimeouts(timeouts: Timeouts, scale: number): Timeouts {
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(`the deadline scale must be a positive number, got ${JSON.stringify(scale)}`);
  const by = (ms: number) => Math.round(ms * scale);
  return {
    request: by(timeouts.request),
    turn: by(timeouts.turn),
    exit: by(timeouts.exit),
    progress: by(timeouts.progress),
  };
}

/** `request 10000 ms, turn 30000 ms, exit 5000 ms, progress 5000 ms`. */
export function describeTimeouts(t: Timeouts): string {
  return `request ${t.request} ms, turn ${t.turn} ms, exit ${t.exit} ms, progress ${t.progress} ms`;
}

/** What a check gets from the runner. */
export interface CheckContext {
  /** Spawns a fresh agent process for this check (all processes of a check share one prepared target). */
  start(label?: string): AgentConnection;
  /** An absolute, existing directory to use as the session cwd. */
  cwd: string;
  timeouts: Timeouts;
  /**
   * Before stdin closes at the end of a check, wait until the agent has written nothing for this long
   * (ms; the profile's settleMs, default 0), so notifications it sends after its last response are seen.
   */
  settleMs: number;
  /**
   * The text the target's model answers a plain prompt with, when the target scripts the model (what a
   * replay must reproduce; an agent may add notices of its own around it). Undefined when unknown.
   */
  modelText?: string;
}

/** One conformance check, derived from the ACP spec of its protocol version. */
export interface Check {
  /** Stable id, `area.name`. */
  id: string;
  /** One line saying what is required. */
  title: string;
  /** Where the requirement comes from (spec page or schema definition). */
  source: string;
  level: CheckLevel;
  /** The protocol version the check speaks (default 1). */
  protocol?: 1 | 2;
  /** The model turns the check runs, in order (for targets that script a model). */
  turns?: TurnKind[];
  /**
   * The verdict is about what the model turns made the agent do (stop reasons, cancels, tool calls): when a
   * target's model could not answer, a pass says nothing either (a turn that ended in a model error passes
   * "no fs/* request" vacuously). Checks without it judge the whole transcript, which stays valid.
   */
  judgesTurns?: boolean;
  /** Resolves with a short pass detail; throws {@link CheckFailed} or {@link CheckSkipped}. */
  run(ctx: CheckContext): Promise<string>;
}

/** The agent did not meet the requirement; the message says what was observed. */
export class CheckFailed extends Error {
  override name = 'CheckFailed';
}

/** The requirement does not apply to this agent; the message says why. */
export class CheckSkipped extends Error {
  override name = 'CheckSkipped';
}

/**
 * The agent answered a request for ACP v2 with another version (1): the v2 checks say nothing about it. Reported
 * as `v1-only` with the version it answered, not as a failure (ACP lets an agent answer its latest version).
 */
export class CheckV1Only extends CheckSkipped {
  override name = 'CheckV1Only';
  constructor(readonly answered: unknown) {
    super(`v1-only: asked for protocolVersion 2, the agent answered ${JSON.stringify(answered)}`);
  }
}

/** Throws {@link CheckFailed}. */
export function fail(detail: string): never {
  throw new CheckFailed(detail);
}

/** Throws {@link CheckSkipped}. */
export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

/** Fails with all problems when there are any. */
export function failIf(problems: string[], prefix = ''): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, 5).join('; ');
  fail(`${prefix}${shown}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`);
}

/** Shortens a raw line for a detail message. */
export function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
