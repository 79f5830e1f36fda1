/**
 * The suite's test object: the package's `test` with what a scenario corpus adds: the project's mode,
 * the named agent profiles a scenario may pick with `"agent": NAME`, and the generated directories of
 * the test's runs (removed when it passes, kept and named in the report when it fails).
 */
import type { SnapshotMode } from '@acp-snapshot/core';
import { test as acpTest } from '../fixtures.js';
import type { AgentProfile } from '../profile.js';
import { RunDirs, settleTestDirs } from '../roots/run-dirs.js';

/** The tag of the fixture-tree rule tests: the guards project runs only them, the others all but them. */
export const GUARDS_TAG = '@acp-guards';

/**
 * What a scenario test does in a project (see scenarioSuite): the mode the agent is told through the contract
 * (session-log's `SnapshotMode`), under the name the package has always exported.
 */
export type SuiteMode = SnapshotMode;

export interface SuiteOptions {
  acpMode: SuiteMode;
  /** Agents a scenario may name in its input.json (`"agent": NAME`), by name. */
  agents: Readonly<Record<string, AgentProfile>>;
}

export interface SuiteFixtures {
  runDirs: RunDirs;
}

export const suiteTest = acpTest.extend<SuiteOptions & SuiteFixtures>({
  acpMode: ['replay', { option: true }],
  agents: [{}, { option: true }],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  runDirs: async ({}, use, testInfo) => {
    const dirs = new RunDirs();
    await use(dirs);
    await settleTestDirs(dirs, testInfo);
  },
});
