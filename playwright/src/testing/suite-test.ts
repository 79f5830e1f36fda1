/** Playwright fixtures of the snapshot suite: the agent command option and the test's scenario run. */
import { test as base } from '@playwright/test';
import { RunDirs, settleTestDirs } from '../roots/run-dirs.js';

/** Options set per project in playwright.config.ts. */
export interface SnapshotOptions {
  /** The agent command line (executable, then arguments) run for every scenario of the project that names no `agent`. */
  agentCommand: string[];
  /** The replay command, for tests that record and then replay (the record-emulator proofs). */
  replayCommand: string[];
  /** Named agent command lines a scenario may pick with `"agent": NAME` in its input.json. */
  agentCommands: Readonly<Record<string, readonly string[]>>;
}

/** Test-scoped fixtures. */
export interface SnapshotFixtures {
  /**
   * The generated directories of the test's scenario runs (pass it to runCorpusScenario): removed
   * when the test passes, kept and named in the report ("kept for inspection: /tmp/acp-snap-...")
   * when it fails.
   */
  runDirs: RunDirs;
}

/** `test` with the snapshot options. */
export const test = base.extend<SnapshotOptions & SnapshotFixtures>({
  agentCommand: [[], { option: true }],
  replayCommand: [[], { option: true }],
  agentCommands: [{}, { option: true }],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  runDirs: async ({}, use, testInfo) => {
    const dirs = new RunDirs();
    await use(dirs);
    await settleTestDirs(dirs, testInfo);
  },
});

export { expect } from '@playwright/test';
