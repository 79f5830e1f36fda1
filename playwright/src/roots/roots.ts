import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { isIdentifyingHome, isIdentifyingUserName, machineSecrets } from '@acp-snapshot/model-http';

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
  /**
   * The agent's temporary directory for a runtime that reads a variable of its own for it (Bun's `BUN_TMPDIR`,
   * where a compiled agent unpacks its native libraries at each start): `ROOT.tmp`, beside the root, so what lands
   * there goes with the test's roots instead of piling up in the machine's /tmp, and an agent that lists the root
   * sees what it always saw.
   */
  tmp: string;
  /** Other spellings of the roots (realpath), for normalization. */
  aliases: Record<string, string[]>;
  /** The machine's real home directory (the harness's own HOME), which tool output may show. */
  realHome?: string;
  /** The real user name, when it identifies someone (see secrets.ts). */
  user?: string;
  /** The directory the agent under test is installed in (its stack traces, its PATH entries). */
  install?: string;
  /** The test's HTTP model server (`http://127.0.0.1:PORT`, a new port per test), once it listens. */
  modelBaseUrl?: string;
  /** Its `127.0.0.1:PORT` alone (what agents print in warnings). */
  modelHost?: string;
  /** The user's project (the config's directory): agents quote files in it (qwen lists its bundled skills). */
  project?: string;
}

/** Options for {@link createTestRoots}. */
export interface RootsOptions {
  /** The scenario's `workspace/` seed, copied into the workspace when it exists. */
  seedDir?: string;
  /** Relative path of the cwd inside the seeded parent directory. */
  workspaceParent?: string;
  /** Parent of the generated root; `/tmp` (fixed, so paths keep their length across machines) when it exists. */
  base?: string;
  /** The agent's install directory, replaced by `{{install}}`. */
  install?: string;
  /** The project directory, replaced by `{{project}}` (the longer of it and the install directory wins). */
  project?: string;
  /** The recording this run replays (see {@link machineRoots}). */
  replaying?: RecordingText;
}

/**
 * The machine's own roots: its real home and its user name, each when it identifies someone (model-http's
 * secrets.ts).
 * Every surface replaces them, so output that shows them replays on the machine that recorded it and on any
 * other; a home that names nobody (`/root`) stays as written, so a recording made as root replays for anyone.
 */
export function machineRoots(replaying?: RecordingText): { realHome?: string; user?: string } {
  const out: { realHome?: string; user?: string } = {};
  // The one reading of this machine's home and user name: what recording scrubs and the guards refuse.
  const { home, user } = machineSecrets([]);
  if (isIdentifyingUserName(user)) out.user = user;
  // A home that names nobody is no root, unless the recording being replayed names a real home (it was made
  // where the home identified someone): then this run's home is what it stands for.
  if (isIdentifyingHome(home) || (home && home !== '/' && namesRealHome(replaying))) out.realHome = home;
  return out;
}

/** A recording's file (a session log, an exchange log): what a replay reads. */
export type RecordingText = string | undefined;

/** Whether the recording file names the real home (`{{realHome}}`); false when there is none. */
export function namesRealHome(file: RecordingText): boolean {
  if (!file || !existsSync(file)) return false;
  return readFileSync(file, 'utf8').includes('{{realHome');
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
    tmp: `${root}.tmp`,
    aliases: {},
    ...machineRoots(opts.replaying),
    ...(opts.install ? { install: opts.install } : {}),
    ...(opts.project ? { project: opts.project } : {}),
  };
  if (opts.workspaceParent) roots.workspaceParent = work;
  await mkdir(work, { recursive: true });
  // Symlinks copied as written (a relative link stays relative), like the seed itself.
  if (opts.seedDir && existsSync(opts.seedDir))
    await cp(opts.seedDir, work, { recursive: true, verbatimSymlinks: true });
  await Promise.all(
    [cwd, roots.persistRoot, roots.spillRoot, roots.home, roots.tmp].map((d) =>
      mkdir(d, { recursive: true }),
    ),
  );
  const real = await realpath(root);
  if (real !== root) {
    for (const [name, dir] of Object.entries(rootMap(roots))) {
      if (dir?.startsWith(root)) roots.aliases[name] = [real + dir.slice(root.length)];
    }
  }
  return roots;
}

/**
 * The named roots for projection and normalization (`{{cwd}}`, `{{spill}}`...: the names agents use
 * in their request fingerprints), longest replaced first by the consumers.
 */
export function rootMap(r: TestRoots): Record<string, string> {
  const all: Record<string, string | undefined> = {
    cwd: r.cwd,
    workspaceParent: r.workspaceParent,
    persist: r.persistRoot,
    spill: r.spillRoot,
    home: r.home,
    root: r.root,
    realHome: r.realHome,
    install: r.install,
    // After install: when both are the same directory (an agent installed in the project) it is {{install}}.
    project: r.project,
    user: r.user,
    modelBaseUrl: r.modelBaseUrl,
    modelHost: r.modelHost,
  };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * The roots an agent is handed in `ACP_SNAPSHOT_ROOTS` so its request fingerprints hide the same
 * roots the harness hides (the cwd it learns from session/new; persist, spill and HOME have their own
 * variables).
 */
export function agentRoots(r: TestRoots): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(rootMap(r))) if (name !== 'cwd') out[name] = value;
  return out;
}

/** Removes a test's root and its temporary directory. */
export async function removeTestRoots(r: TestRoots): Promise<void> {
  await Promise.all([rm(r.root, { recursive: true, force: true }), removeTestTemporary(r)]);
}

/** Removes a test's temporary directory alone (what its agent's runtime unpacked), as when its roots are kept. */
export async function removeTestTemporary(r: TestRoots): Promise<void> {
  await rm(r.tmp, { recursive: true, force: true });
}

/**
 * The directory an agent command is installed in, for `{{install}}`: the outermost directory holding
 * a package.json above the command's script (a workspace root, or the project whose node_modules
 * holds an npm-installed agent); undefined when the command names no script on disk.
 */
export function installDir(command: readonly string[]): string | undefined {
  const script = command.find((a, i) => i > 0 && isAbsolute(a) && existsSync(a)) ?? command[0];
  if (!script || !isAbsolute(script) || !existsSync(script)) return undefined;
  let found: string | undefined;
  for (let dir = dirname(script); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) found = dir;
    if (dirname(dir) === dir) break;
  }
  return found;
}
