import { existsSync } from 'node:fs';
import { expect, test } from '../testing/suite-test.js';
import { createTestRoots } from './roots.js';
import { keptMessage, RunDirs, settleRunDirs } from './run-dirs.js';

async function twoRuns(): Promise<RunDirs> {
  const dirs = new RunDirs();
  dirs.track(await createTestRoots('run-dirs-test'));
  dirs.track(await createTestRoots('run-dirs-test'));
  return dirs;
}

test('a passing test removes the directories of all its runs', async () => {
  const dirs = await twoRuns();
  const paths = dirs.paths;
  expect(paths.every((p) => existsSync(p))).toBe(true);
  const reported: string[] = [];
  expect(await settleRunDirs(dirs, { passed: true, report: async (m) => void reported.push(m) })).toEqual([]);
  expect(paths.filter((p) => existsSync(p))).toEqual([]);
  expect(reported).toEqual([]);
});

test('a failing test keeps them and names every one in its report', async () => {
  const dirs = await twoRuns();
  const reported: Array<[string, readonly string[]]> = [];
  try {
    const kept = await settleRunDirs(dirs, {
      passed: false,
      report: async (m, p) => void reported.push([m, p]),
    });
    expect(kept).toEqual(dirs.paths);
    expect(kept.every((p) => existsSync(p))).toBe(true);
    expect(reported).toEqual([[`kept for inspection: ${kept[0]} ${kept[1]}`, kept]]);
    expect(keptMessage(kept)).toMatch(
      /^kept for inspection: \/tmp\/acp-snap-[0-9a-f]{8}-\w{6} \/tmp\/acp-snap-/,
    );
  } finally {
    await dirs.removeAll();
  }
  // A failing test that made no run has nothing to report.
  await settleRunDirs(new RunDirs(), { passed: false, report: async (m) => void reported.push([m, []]) });
  expect(reported).toHaveLength(1);
});
