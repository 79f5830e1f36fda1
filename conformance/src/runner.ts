/** Runs conformance checks against an agent target and renders the result table. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Check,
  CheckFailed,
  type CheckLevel,
  CheckSkipped,
  type CheckStatus,
  CheckV1Only,
  DEFAULT_TIMEOUTS,
  scaleTimeouts,
  type Timeouts,
  type TurnKind,
} from './check.js';
import {
  AgentConnection,
  type ExitPolicy,
  isResponse,
  type KitClientCapabilities,
  NO_CAPABILITIES,
} from './wire.js';

/** What a target needs to know to prepare one check. */
export interface PrepareInput {
  checkId: string;
  /** A fresh directory owned by this check (removed afterwards). */
  root: string;
  /** The session cwd (inside root, exists). */
  cwd: string;
  /** The check's fresh, empty HOME (inside root, exists). */
  home: string;
  turns: TurnKind[];
}

/** The environment a target prepared for one check, and how to tear it down. */
export interface PreparedTarget {
  /**
   * The variables the target declares. Every agent process of the check gets these on top of the clean
   * base (PATH, LANG, the check's fresh HOME and TMPDIR) and nothing else of the runner's environment.
   */
  env: Record<string, string | undefined>;
  /**
   * Why a check with model turns says nothing about the agent, when the target knows (the agent asked the
   * model stand-in for a wire format it does not speak): the check is then reported as `skip` with this
   * reason, whether it failed or passed (a turn that ended in a model error can pass a check vacuously).
   */
  inconclusive?(): string | undefined;
  /** The text the target's model answers a plain prompt with, when the target scripts the model. */
  modelText?: string;
  dispose(): Promise<void>;
}

/** An ACP agent command to check. */
export interface AgentTarget {
  name: string;
  command: string;
  args: string[];
  /** Per-check setup (an emulator, directories, declared env); without it the agent gets `env`. */
  prepare?(input: PrepareInput): Promise<PreparedTarget>;
  /** Declared variables (on top of the clean base; see {@link PreparedTarget.env}). */
  env?: Record<string, string | undefined>;
  /** The agent processes' working directory (default: the check's scratch directory). */
  processCwd?: string;
  /** Replaces the exit deadline (before the deadline scale), as a profile's exitGraceMs does. */
  exitGraceMs?: number;
  /** The settle wait before stdin closes (ms; a profile's settleMs). */
  settleMs?: number;
  /** How the agent is asked to exit at the end of a check (a profile's `exit`; default `stdin`). */
  exit?: ExitPolicy;
  /** What the client advertises in initialize and serves (a profile's `clientCapabilities`; default none). */
  clientCapabilities?: KitClientCapabilities;
}

/** How a run was configured, for the report. */
export interface CheckRunOptions {
  /** Base deadlines (default {@link DEFAULT_TIMEOUTS}); the target's exitGraceMs replaces `exit`. */
  timeouts?: Timeouts;
  /** Multiplies every deadline (default 1). */
  deadlineScale?: number;
}

/** One row of the result table. */
export interface CheckResult {
  id: string;
  title: string;
  level: CheckLevel;
  status: CheckStatus;
  detail: string;
  ms: number;
  /** Process ids of the agent processes the check ran (all exited when the result is returned). */
  pids: number[];
  /** Transcripts of every agent process the check ran (client lines, stdout lines, stderr, exit). */
  transcript: string;
  /** The agentInfo the agent's first initialize result carried, if any (v2: its `info`). */
  agentInfo?: { name?: unknown; version?: unknown };
  /**
   * Set when a v2 check met an agent that answered protocolVersion 2 with another version (the version it
   * answered): the result is `skip`, reported as v1-only.
   */
  v1Only?: unknown;
}

/**
 * The clean base environment of a check: PATH, LANG, the fresh HOME and TMPDIR. Nothing else of the
 * runner's environment reaches an agent (an inherited variable once broke an agent's session/new; a shared
 * HOME let one check's state change the next). PATH is kept whole, `node_modules/.bin` entries included:
 * that is where an agent installed from npm lives (the harness strips them only for its own agent's
 * replayable output).
 */
export function baseEnv(
  home: string,
  tmp: string,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  return {
    PATH: parent.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: parent.LANG ?? 'C.UTF-8',
    HOME: home,
    TMPDIR: tmp,
  };
}

/** The deadlines a check against `target` runs with. */
export function effectiveTimeouts(target: AgentTarget, opts: CheckRunOptions = {}): Timeouts {
  const base = opts.timeouts ?? DEFAULT_TIMEOUTS;
  const withGrace = target.exitGraceMs === undefined ? base : { ...base, exit: target.exitGraceMs };
  return scaleTimeouts(withGrace, opts.deadlineScale ?? 1);
}

function agentInfoOf(conns: readonly AgentConnection[]): CheckResult['agentInfo'] {
  for (const conn of conns) {
    const init = conn.outbound.find((o) => o.msg?.method === 'initialize')?.msg;
    const resp = init && conn.messages.find((m) => isResponse(m) && m.id === init.id);
    const result = resp?.result as { agentInfo?: unknown; info?: unknown } | undefined;
    const info = result?.agentInfo ?? result?.info;
    if (info && typeof info === 'object') return info as CheckResult['agentInfo'];
  }
  return undefined;
}

/** Runs one check against a fresh preparation of the target; never throws for agent behaviour. */
export async function runCheck(
  target: AgentTarget,
  check: Check,
  opts: CheckRunOptions | Timeouts = {},
): Promise<CheckResult> {
  const timeouts = effectiveTimeouts(target, 'request' in opts ? { timeouts: opts } : opts);
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), `acp-conformance-${check.id.replace(/[^a-z0-9]+/gi, '-')}-`));
  const cwd = join(root, 'workspace');
  const home = join(root, 'home');
  const tmp = join(root, 'tmp');
  for (const d of [cwd, home, tmp]) mkdirSync(d, { recursive: true });
  const conns: AgentConnection[] = [];
  let prepared: PreparedTarget | undefined;
  let status: CheckStatus;
  let detail: string;
  let v1Only: unknown;
  try {
    prepared = target.prepare
      ? await target.prepare({ checkId: check.id, root, cwd, home, turns: check.turns ?? [] })
      : { env: target.env ?? {}, dispose: async () => {} };
    const env = { ...baseEnv(home, tmp), ...prepared.env };
    detail = await check.run({
      cwd,
      timeouts,
      settleMs: target.settleMs ?? 0,
      ...(prepared.modelText !== undefined && { modelText: prepared.modelText }),
      start: (label) => {
        const conn = AgentConnection.spawn(
          target.command,
          target.args,
          {
            env,
            cwd: target.processCwd ?? root,
            clientCapabilities: target.clientCapabilities ?? NO_CAPABILITIES,
            exitPolicy: target.exit ?? 'stdin',
          },
          label ?? `${target.name} process ${conns.length + 1}`,
        );
        conns.push(conn);
        return conn;
      },
    });
    status = 'pass';
  } catch (e) {
    status = e instanceof CheckSkipped ? 'skip' : 'fail';
    if (e instanceof CheckV1Only) v1Only = e.answered;
    detail =
      e instanceof CheckFailed || e instanceof CheckSkipped
        ? e.message
        : `${(e as Error).name}: ${(e as Error).message}`;
  } finally {
    // No orphans: any process a check left running is killed and awaited.
    await Promise.all(conns.map((c) => (c.exit ? undefined : c.shutdown(0))));
    // A process the agent started can outlive it (same process group): gone before its HOME is deleted.
    await Promise.all(conns.map((c) => c.reapGroup(timeouts.exit)));
    await prepared?.dispose();
    rmSync(root, { recursive: true, force: true });
  }
  // A model-turn check that failed or skipped, or that judges the turns and passed, when the model could not
  // answer: the model's failure is the reason to report.
  const moot = check.turns?.length && (status !== 'pass' || check.judgesTurns);
  const excuse = moot ? prepared?.inconclusive?.() : undefined;
  if (excuse) {
    detail = `${excuse} (the check saw: ${status}: ${detail})`;
    status = 'skip';
  }
  const agentInfo = agentInfoOf(conns);
  return {
    id: check.id,
    title: check.title,
    level: check.level,
    status,
    detail,
    ms: Date.now() - started,
    pids: conns.flatMap((c) => (c.pid === undefined ? [] : [c.pid])),
    transcript: conns.map((c) => c.transcript()).join('\n\n'),
    ...(agentInfo && { agentInfo }),
    ...(v1Only !== undefined && { v1Only }),
  };
}

/** Runs checks with at most `jobs` at a time; results come back in check order. */
export async function runChecks(
  target: AgentTarget,
  checks: readonly Check[],
  opts: CheckRunOptions & { jobs?: number; onResult?: (r: CheckResult) => void } = {},
): Promise<CheckResult[]> {
  const results: CheckResult[] = new Array(checks.length);
  let next = 0;
  const worker = async () => {
    while (next < checks.length) {
      const i = next++;
      const r = await runCheck(target, checks[i]!, opts);
      results[i] = r;
      opts.onResult?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.jobs ?? 2) }, worker));
  return results;
}

/**
 * Runs a suite the way its protocol needs: a v2 suite runs its first check (`v2.negotiation`) alone, and when
 * the agent answered 1 the other checks are not run but reported v1-only like it (no agent process each).
 */
export async function runSuite(
  target: AgentTarget,
  checks: readonly Check[],
  opts: CheckRunOptions & { jobs?: number; onResult?: (r: CheckResult) => void } = {},
): Promise<CheckResult[]> {
  const [first, ...rest] = checks;
  if (first?.protocol !== 2) return runChecks(target, checks, opts);
  const head = await runCheck(target, first, opts);
  opts.onResult?.(head);
  if (head.v1Only === undefined) return [head, ...(await runChecks(target, rest, opts))];
  const others = rest.map((c): CheckResult => {
    const r = { ...head, id: c.id, title: c.title, level: c.level, ms: 0, pids: [], transcript: '' };
    opts.onResult?.(r);
    return r;
  });
  return [head, ...others];
}

/** `v1-only (answered protocolVersion 1)` when a v2 run met a v1-only agent, else undefined. */
export function v1OnlyVerdict(results: readonly CheckResult[]): string | undefined {
  const r = results.find((x) => x.v1Only !== undefined);
  return r ? `v1-only (asked for protocolVersion 2, answered ${JSON.stringify(r.v1Only)})` : undefined;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The result table as Markdown (check id, title, status, detail). */
export function formatTable(results: readonly CheckResult[]): string {
  const rows = results.map((r) => `| \`${r.id}\` | ${cell(r.title)} | ${r.status} | ${cell(r.detail)} |`);
  return ['| check | requirement | result | detail |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** `21 checks: 18 pass, 2 fail, 1 skip`. */
export function summarize(results: readonly CheckResult[]): string {
  const n = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  return `${results.length} checks: ${n('pass')} pass, ${n('fail')} fail, ${n('skip')} skip`;
}

/** Pass / fail / skip counts per requirement level. */
export type LevelCounts = Record<CheckLevel, Record<CheckStatus, number>>;

/** Counts results per level and status. */
export function countByLevel(results: readonly CheckResult[]): LevelCounts {
  const zero = () => ({ pass: 0, fail: 0, skip: 0 });
  const counts: LevelCounts = { mandatory: zero(), capability: zero(), advisory: zero() };
  for (const r of results) counts[r.level][r.status]++;
  return counts;
}

/** `mandatory 17/17, capability 3 pass / 0 fail / 4 skip, advisory 4/5` (skips of mandatory or advisory checks are named). */
export function summarizeLevels(results: readonly CheckResult[]): string {
  const c = countByLevel(results);
  const ratio = (l: CheckLevel) => {
    const { pass, fail, skip } = c[l];
    return `${l} ${pass}/${pass + fail}${skip ? ` (${skip} skip)` : ''}`;
  };
  const cap = c.capability;
  return `${ratio('mandatory')}, capability ${cap.pass} pass / ${cap.fail} fail / ${cap.skip} skip, ${ratio('advisory')}`;
}
