/** Where scenarios live and how they are discovered (synchronously, at test-load time). */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

/**
 * The project root: `ACP_SNAPSHOT_PROJECT_ROOT`, else the nearest directory at or above the working
 * directory that holds a Playwright config (where `npx playwright test` and the package's commands run),
 * else the working directory. Never derived from where this code lies: installed, it lies in node_modules.
 */
export function projectRoot(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (env.ACP_SNAPSHOT_PROJECT_ROOT) return resolve(env.ACP_SNAPSHOT_PROJECT_ROOT);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (CONFIG_NAMES.some((n) => existsSync(join(dir, n)))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}
const CONFIG_NAMES = [
  'playwright.config.ts',
  'playwright.config.mts',
  'playwright.config.js',
  'playwright.config.mjs',
];

/** The project root of this process (see {@link projectRoot}). */
export const REPO_ROOT = projectRoot();

/**
 * The fixtures directory: `fixtures/` of the repository, or `ACP_SNAPSHOT_FIXTURES` (used to record
 * or refresh into a temporary copy).
 */
export function fixturesDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.ACP_SNAPSHOT_FIXTURES ? resolve(env.ACP_SNAPSHOT_FIXTURES) : join(REPO_ROOT, 'fixtures');
}

/**
 * The guard options of a fixtures directory: scenarios may name the `agents` (the project's
 * `use.agents`), and the session-log checks widen to the whole project when the fixtures directory lies
 * inside it (a fixtures directory elsewhere is checked on its own).
 */
export function repoGuardOptions(
  dir: string,
  agents: Readonly<Record<string, readonly string[]>>,
): { repoRoot?: string; agents: Readonly<Record<string, readonly string[]>> } {
  const rel = relative(REPO_ROOT, dir);
  return rel.startsWith('..') || isAbsolute(rel) ? { agents } : { repoRoot: REPO_ROOT, agents };
}

/** The files of one scenario. */
export interface ScenarioPaths {
  name: string;
  dir: string;
  input: string;
  stdout: string;
  session: string;
  override: string;
  workspace: string;
  /** The fixtures' shared sidecars directory. */
  sidecars: string;
  /** What the agent leaves in the workspace, against the seed (workspace.ts). */
  workspaceExpected: string;
}

/** Paths of scenario `name` under a fixtures directory. */
export function scenarioPaths(fixtures: string, name: string): ScenarioPaths {
  const dir = join(fixtures, 'scenarios', name);
  return {
    name,
    dir,
    input: join(dir, 'input.json'),
    stdout: join(dir, 'stdout.expected.jsonl'),
    session: join(dir, 'session.jsonl'),
    override: join(dir, 'replay.override.json'),
    workspace: join(dir, 'workspace'),
    sidecars: join(fixtures, 'sidecars'),
    workspaceExpected: join(dir, 'workspace.expected.json'),
  };
}

/**
 * Scenario names (directories holding an input.json), sorted. `ACP_SNAPSHOT_ONLY=a,b` (set by
 * `npm run record|refresh -- a b`) selects exact names; `-g` remains the interactive filter.
 */
export function discoverScenarios(fixtures: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = join(fixtures, 'scenarios');
  if (!existsSync(dir)) return [];
  const only = env.ACP_SNAPSHOT_ONLY?.split(',').filter(Boolean);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'input.json')))
    .map((e) => e.name)
    .filter((n) => !only || only.includes(n))
    .sort();
}

/** Validates scenario names given on the command line; returns an error message or undefined. */
export function unknownScenarios(names: readonly string[], known: readonly string[]): string | undefined {
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length === 0) return undefined;
  return `unknown scenario(s): ${unknown.join(', ')} (known: ${known.join(', ') || 'none'}; a scenario is a directory with an input.json under fixtures/scenarios/)`;
}
