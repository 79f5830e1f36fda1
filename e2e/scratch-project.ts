/** A scratch project for tests that run the suite's own command lines against a copy of a scenario. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pruneSidecars, REPO_ROOT } from '@acp-snapshot/playwright/testing';
import { execa } from 'execa';
import { tempFixtures } from './fixture-copy.js';

export interface Shell extends AsyncDisposable {
  /** Runs a command line in the repository against the scratch fixtures; never throws on a failing exit. */
  run(command: string): Promise<{ exitCode: number; output: string }>;
  /** The scratch project: its fixtures/ directory holds the copy (as a repository's does). */
  project: string;
  fixtures: string;
  /** Where the shell's Playwright runs write test-results/ and playwright-report/. */
  results: string;
}

/**
 * A scratch project whose fixtures/ holds the named scenario(s) with only their own sidecars, and a shell
 * whose commands (run in this repository) use those fixtures and write their results beside them.
 */
export async function scratchProject(
  name: string | string[],
  extraEnv: Record<string, string> = {},
): Promise<Shell> {
  const root = await mkdtemp(join(tmpdir(), 'acp-snap-commands-'));
  const project = join(root, 'project');
  const fixtures = await tempFixtures(typeof name === 'string' ? [name] : name, join(project, 'fixtures'));
  await pruneSidecars(fixtures);
  const env = {
    ...extraEnv,
    ACP_SNAPSHOT_FIXTURES: fixtures,
    ACP_SNAPSHOT_RESULTS: join(root, 'results'),
    FORCE_COLOR: '0',
  };
  return {
    project,
    fixtures,
    results: env.ACP_SNAPSHOT_RESULTS,
    async run(command) {
      const r = await execa('sh', ['-c', command], { cwd: REPO_ROOT, env, all: true, reject: false });
      return { exitCode: r.exitCode ?? 1, output: r.all ?? '' };
    },
    async [Symbol.asyncDispose]() {
      await rm(root, { recursive: true, force: true });
    },
  };
}
