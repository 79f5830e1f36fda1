/** Shared by `record`, `refresh` and `check`: run one of the scenario projects over named scenarios. */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { discoverScenarios, fixturesDir, REPO_ROOT, unknownScenarios } from '../scenario/corpus.js';

/**
 * Runs `playwright test --project=PROJECT` over the named scenarios (all when none), one progress
 * line per scenario (list reporter), and the teardown that deletes sidecars no session fixture references any more.
 */
export async function runFixtureProject(
  project: 'record' | 'refresh' | 'guards',
  names: readonly string[],
): Promise<number> {
  const dir = fixturesDir();
  const known = discoverScenarios(dir, {});
  const bad = unknownScenarios(names, known);
  if (bad) {
    console.error(`${project}: ${bad}`);
    return 2;
  }
  const selected = names.length ? names : known;
  console.error(`${project}: ${selected.length} scenario(s): ${selected.join(', ')}`);
  // The project's own Playwright, wherever its node_modules lies above the project root.
  const cli = createRequire(join(REPO_ROOT, 'package.json')).resolve('@playwright/test/cli');
  const r = spawnSync(process.execPath, [cli, 'test', `--project=${project}`, '--reporter=list'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...(names.length ? { ACP_SNAPSHOT_ONLY: names.join(',') } : {}) },
  });
  // Sidecars no fixture references any more are removed by the projects' teardown (e2e/sidecars.teardown.ts).
  return r.status ?? 1;
}
