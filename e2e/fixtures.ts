/** Playwright fixtures of the snapshot suite: the agent command option and the test's scenario run. */
import { test as base } from '@playwright/test';

/** Options set per project in playwright.config.ts. */
export interface SnapshotOptions {
  /** The agent command line (executable, then arguments) run for every scenario of the project that names no `agent`. */
  agentCommand: string[];
  /** The replay command, for tests that record and then replay (the record-emulator proofs). */
  replayCommand: string[];
  /** Named agent command lines a scenario may pick with `"agent": NAME` in its input.json. */
  agents: Readonly<Record<string, readonly string[]>>;
}

/** `test` with the snapshot options. */
export const test = base.extend<SnapshotOptions>({
  agentCommand: [[], { option: true }],
  replayCommand: [[], { option: true }],
  agents: [{}, { option: true }],
});

export { expect } from '@playwright/test';
