/** Runs conformance checks against an agent target and renders the result table. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Check,
  CheckFailed,
  CheckSkipped,
  type CheckStatus,
  DEFAULT_TIMEOUTS,
  type Timeouts,
  type TurnKind,
} from './check.js';
import { AgentConnection } from './wire.js';

/** What a target needs to know to prepare one check. */
export interface PrepareInput {
  checkId: string;
  /** A fresh directory owned by this check (removed afterwards). */
  root: string;
  /** The session cwd (inside root, exists). */
  cwd: string;
  turns: TurnKind[];
}

/** The environment a target prepared for one check, and how to tear it down. */
export interface PreparedTarget {
  /** The complete environment of every agent process of the check. */
  env: Record<string, string | undefined>;
  dispose(): Promise<void>;
}

/** An ACP agent command to check. */
export interface AgentTarget {
  name: string;
  command: string;
  args: string[];
  /** Per-check setup (an emulator, directories, env); without it the agent gets `env` or a minimal one. */
  prepare?(input: PrepareInput): Promise<PreparedTarget>;
  env?: Record<string, string | undefined>;
  /** The agent processes' working directory (default: the check's scratch directory). */
  processCwd?: string;
}

/** One row of the result table. */
export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  ms: number;
  /** Process ids of the agent processes the check ran (all exited when the result is returned). */
  pids: number[];
  /** Transcripts of every agent process the check ran (client lines, stdout lines, stderr, exit). */
  transcript: string;
}

function minimalEnv(home: string): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: home, LANG: process.env.LANG ?? 'C.UTF-8', TZ: 'UTC' };
}

/** Runs one check against a fresh preparation of the target; never throws for agent behaviour. */
export async function runCheck(
  target: AgentTarget,
  check: Check,
  timeouts: Timeouts = DEFAULT_TIMEOUTS,
): Promise<CheckResult> {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), `acp-conformance-${check.id.replace(/[^a-z0-9]+/gi, '-')}-`));
  const cwd = join(root, 'workspace');
  mkdirSync(cwd, { recursive: true });
  const conns: AgentConnection[] = [];
  let prepared: PreparedTarget | undefined;
  let status: CheckStatus;
  let detail: string;
  try {
    prepared = target.prepare
      ? await target.prepare({ checkId: check.id, root, cwd, turns: check.turns ?? [] })
      : { env: target.env ?? minimalEnv(join(root, 'home')), dispose: async () => {} };
    const env = prepared.env;
    detail = await check.run({
      cwd,
      timeouts,
      start: (label) => {
        const conn = AgentConnection.spawn(
          target.command,
          target.args,
          { env, cwd: target.processCwd ?? root },
          label ?? `${target.name} process ${conns.length + 1}`,
        );
        conns.push(conn);
        return conn;
      },
    });
    status = 'pass';
  } catch (e) {
    status = e instanceof CheckSkipped ? 'skip' : 'fail';
    detail =
      e instanceof CheckFailed || e instanceof CheckSkipped
        ? e.message
        : `${(e as Error).name}: ${(e as Error).message}`;
  } finally {
    // No orphans: any process a check left running is killed and awaited.
    await Promise.all(conns.map((c) => (c.exit ? undefined : c.shutdown(0))));
    await prepared?.dispose();
    rmSync(root, { recursive: true, force: true });
  }
  return {
    id: check.id,
    title: check.title,
    status,
    detail,
    ms: Date.now() - started,
    pids: conns.flatMap((c) => (c.pid === undefined ? [] : [c.pid])),
    transcript: conns.map((c) => c.transcript()).join('\n\n'),
  };
}

/** Runs checks with at most `jobs` at a time; results come back in check order. */
export async function runChecks(
  target: AgentTarget,
  checks: readonly Check[],
  opts: { jobs?: number; timeouts?: Timeouts; onResult?: (r: CheckResult) => void } = {},
): Promise<CheckResult[]> {
  const results: CheckResult[] = new Array(checks.length);
  let next = 0;
  const worker = async () => {
    while (next < checks.length) {
      const i = next++;
      const r = await runCheck(target, checks[i]!, opts.timeouts);
      results[i] = r;
      opts.onResult?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.jobs ?? 2) }, worker));
  return results;
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
