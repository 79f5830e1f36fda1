import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fse from 'fs-extra';

/** The isolated directories of one test run of a scenario. */
export interface TestRoots {
  /** `/tmp/acp-snap-<8 hex of sha256(scenario)>-<6 random chars>`: the same length for every run of a scenario. */
  root: string;
  /** The session cwd given to the agent in session/new (workspace seed copied in). */
  cwd: string;
  /** Set when the scenario uses `flags.workspaceParent`: the seeded directory that contains the cwd. */
  workspaceParent?: string;
  /** Where the agent persists session logs (ACP_SNAPSHOT_PERSIST_ROOT). */
  persistRoot: string;
  /** Where the agent spills oversized tool output (ACP_SNAPSHOT_SPILL_ROOT). */
  spillRoot: string;
  /** The agent's HOME. */
  home: string;
  /** Other spellings of the roots (realpath), for normalization. */
  aliases: Record<string, string[]>;
}

/** Options for {@link createTestRoots}. */
export interface RootsOptions {
  /** The scenario's `workspace/` seed, copied into the workspace when it exists. */
  seedDir?: string;
  /** Relative path of the cwd inside the seeded parent directory. */
  workspaceParent?: string;
  /** Parent of the generated root; `/tmp` (fixed, so paths keep their length across machines) when it exists. */
  base?: string;
}

/** Eight hex characters of sha256(scenario): keys the generated root to the scenario. */
export function scenarioKey(scenario: string): string {
  return createHash('sha256').update(scenario).digest('hex').slice(0, 8);
}

function defaultBase(): string {
  return existsSync('/tmp') ? '/tmp' : tmpdir();
}

/**
 * Creates a fresh root for one run: nothing is shared between concurrent tests. Every path has a
 * fixed length per scenario, so output budgets that count path characters (tool previews naming a
 * spill file) do not shift between a recording and a replay.
 */
export async function createTestRoots(scenario: string, opts: RootsOptions = {}): Promise<TestRoots> {
  const root = await mkdtemp(join(opts.base ?? defaultBase(), `acp-snap-${scenarioKey(scenario)}-`));
  const work = join(root, 'work');
  const cwd = opts.workspaceParent ? join(work, opts.workspaceParent) : work;
  const roots: TestRoots = {
    root,
    cwd,
    persistRoot: join(root, 'persist'),
    spillRoot: join(root, 'spill'),
    home: join(root, 'home'),
    aliases: {},
  };
  if (opts.workspaceParent) roots.workspaceParent = work;
  await mkdir(work, { recursive: true });
  if (opts.seedDir && existsSync(opts.seedDir)) await fse.copy(opts.seedDir, work);
  await Promise.all(
    [cwd, roots.persistRoot, roots.spillRoot, roots.home].map((d) => mkdir(d, { recursive: true })),
  );
  const real = await realpath(root);
  if (real !== root) {
    for (const [name, dir] of Object.entries(rootMap(roots))) {
      if (dir) roots.aliases[name] = [real + dir.slice(root.length)];
    }
  }
  return roots;
}

/**
 * The named roots for projection and normalization (`{{cwd}}`, `{{spill}}`...: the names agents use
 * in their request fingerprints), longest replaced first by the consumers.
 */
export function rootMap(r: TestRoots): Record<string, string | undefined> {
  return {
    cwd: r.cwd,
    workspaceParent: r.workspaceParent,
    persist: r.persistRoot,
    spill: r.spillRoot,
    home: r.home,
    root: r.root,
  };
}

/** Removes a test's root. */
export async function removeTestRoots(r: TestRoots): Promise<void> {
  await rm(r.root, { recursive: true, force: true });
}
