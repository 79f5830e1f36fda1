/**
 * The generated directories of one test's scenario runs: removed when the test passes, kept when it
 * fails so a user can look at what the agent left (workspace, persisted log, spill files, HOME).
 */
import type { TestInfo } from '@playwright/test';
import { removeTestRoots, removeTestTemporary, type TestRoots } from './roots.js';

/** The roots every run of one test created, in creation order. */
export class RunDirs {
  private readonly roots: TestRoots[] = [];

  /** Called by a run as soon as its roots exist, so they are accounted for even when the run throws. */
  track(roots: TestRoots): void {
    this.roots.push(roots);
  }

  /** The generated roots (`/tmp/acp-snap-...`) created so far. */
  get paths(): string[] {
    return this.roots.map((r) => r.root);
  }

  /** The most recent run's roots, once that run has created them. */
  get latest(): TestRoots | undefined {
    return this.roots.at(-1);
  }

  /** Removes every tracked root's temporary directory (TestRoots.tmp), keeping the roots. */
  async removeTemporary(): Promise<void> {
    await Promise.all(this.roots.map(removeTestTemporary));
  }

  /** Removes every tracked root. */
  async removeAll(): Promise<void> {
    const roots = this.roots.splice(0);
    await Promise.all(roots.map(removeTestRoots));
  }
}

/** What the report says of kept directories. */
export const keptMessage = (paths: readonly string[]) => `kept for inspection: ${paths.join(' ')}`;

/** How a test ended and how its report is told about kept directories. */
export interface SettleInput {
  /** The test ended as expected (passed, or failed as a `test.fail` expects). */
  passed: boolean;
  /** Tells the report (an attachment and an annotation in Playwright): the message and the kept paths. */
  report: (message: string, paths: readonly string[]) => Promise<void>;
}

/**
 * Ends a test's directories: removed when it passed; kept and reported when it failed. Returns the
 * kept paths.
 */
export async function settleRunDirs(dirs: RunDirs, end: SettleInput): Promise<string[]> {
  if (end.passed) {
    await dirs.removeAll();
    return [];
  }
  // What the agent left is kept; what its runtime unpacked (BUN_TMPDIR) is no part of it, and is megabytes.
  await dirs.removeTemporary();
  const kept = dirs.paths;
  if (kept.length > 0) await end.report(keptMessage(kept), kept);
  return kept;
}

/**
 * Ends a test's generated directories: removed when it passed, kept and named in its report (an
 * annotation and an attachment the list reporter prints) when it failed.
 */
export async function settleTestDirs(dirs: RunDirs, testInfo: TestInfo): Promise<void> {
  await settleRunDirs(dirs, {
    passed: testInfo.status === testInfo.expectedStatus,
    report: async (message, paths) => {
      testInfo.annotations.push({ type: 'kept for inspection', description: paths.join(' ') });
      await testInfo.attach('kept for inspection', { body: message, contentType: 'text/plain' });
    },
  });
}
