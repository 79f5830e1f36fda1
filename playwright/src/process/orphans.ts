/**
 * Orphan processes: anything still running with its working directory inside a test's roots after
 * the agent is gone (for example a tool's child that the agent started in its own process group and
 * could not end because it was killed with SIGKILL). The harness finds them through /proc, kills
 * them, and names them in the failure, so no run leaves work behind on the machine.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** A process found running inside a test's roots. */
export interface StrayProcess {
  pid: number;
  /** Its command line, arguments joined by spaces. */
  command: string;
  /** Its working directory (a directory removed since is still reported, without the " (deleted)" mark). */
  cwd: string;
}

const DELETED = ' (deleted)';

/** The process if its working directory is `dir` or inside it (cwd is read first: it rules out nearly all). */
function describeInside(pid: number, dir: string, prefix: string): StrayProcess | undefined {
  try {
    let cwd = readlinkSync(`/proc/${pid}/cwd`);
    if (cwd.endsWith(DELETED)) cwd = cwd.slice(0, -DELETED.length);
    if (cwd !== dir && !cwd.startsWith(prefix)) return undefined;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesised command name; a zombie has already released everything.
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return undefined;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return { pid, cwd, command: cmdline.split('\0').filter(Boolean).join(' ') };
  } catch {
    // Gone meanwhile, or not ours to inspect.
    return undefined;
  }
}

/**
 * Live processes (other than this one) whose working directory is `dir` or inside it; [] without /proc.
 * Synchronous on purpose: a scan of a few hundred /proc entries takes under a millisecond, where one promise per
 * entry through the thread pool cost a Playwright worker ~4 ms of CPU per test (decision 0031).
 */
export async function processesInside(dir: string): Promise<StrayProcess[]> {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const prefix = join(dir, '/');
  const found: StrayProcess[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const stray = describeInside(Number(entry), dir, prefix);
    if (stray) found.push(stray);
  }
  return found;
}

function kill(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      // Its process group first: a detached tool shell leads the group of everything it started.
      process.kill(target, 'SIGKILL');
    } catch {
      // Not a group leader, or already gone.
    }
  }
}

/** Options of {@link reapOrphans}. */
export interface ReapOptions {
  /** How long processes may take to end by themselves (an agent's own cleanup after it died) before they count as orphans. */
  graceMs?: number;
  /** How long the killed ones may take to disappear. */
  killWaitMs?: number;
}

/** Polls /proc until nothing (but the `ignore`d pids) runs inside `dir` or `ms` pass; returns what is still running. */
async function settle(dir: string, ms: number, ignore?: ReadonlySet<number>): Promise<StrayProcess[]> {
  const deadline = Date.now() + ms;
  const inside = async () => (await processesInside(dir)).filter((p) => !ignore?.has(p.pid));
  let left = await inside();
  while (left.length > 0 && Date.now() < deadline) {
    // These are not our children (no exit event to wait for): poll /proc.
    await new Promise<void>((res) => setTimeout(res, 10));
    left = await inside();
  }
  return left;
}

/**
 * Processes running inside `dir` that were not running before (`before`: their pids) and do not end
 * within `ms`: what a cancelled turn left behind while its agent keeps running. Not killed here.
 */
export function startedAndLingering(
  dir: string,
  before: ReadonlySet<number>,
  ms: number,
): Promise<StrayProcess[]> {
  return settle(dir, ms, before);
}

/**
 * Processes still running inside `dir` once the grace period is over are orphans: they are killed
 * (with their process groups) and returned; [] when the run left nothing behind.
 */
export async function reapOrphans(dir: string, opts: ReapOptions = {}): Promise<StrayProcess[]> {
  const orphans = await settle(dir, opts.graceMs ?? 1000);
  if (orphans.length === 0) return [];
  for (const p of orphans) kill(p.pid);
  const left = await settle(dir, opts.killWaitMs ?? 5000);
  if (left.length > 0) {
    throw new Error(
      `${orphansMessage(orphans)}\nThese could not be killed: ${left.map((p) => `pid ${p.pid}`).join(', ')}`,
    );
  }
  return orphans;
}

/** The failure text naming processes the agent left running (already killed by the harness). */
export function orphansMessage(orphans: readonly StrayProcess[]): string {
  const list = orphans.map((p) => `  pid ${p.pid}: ${p.command} (cwd ${p.cwd})`).join('\n');
  return `orphan processes: ${orphans.length} process(es) were still running inside the test's directories after the agent exited (the harness killed them):\n${list}`;
}
