import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { discoverScenarios, fixturesDir, REPO_ROOT, scenarioPaths, unknownScenarios } from './corpus.js';

test('scenarios are directories with an input.json, sorted, optionally selected by ACP_SNAPSHOT_ONLY', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'scenarios-test-'));
  try {
    for (const n of ['b', 'a', 'c']) {
      await mkdir(join(dir, 'scenarios', n), { recursive: true });
      if (n !== 'c') await writeFile(join(dir, 'scenarios', n, 'input.json'), '{}');
    }
    await writeFile(join(dir, 'scenarios', 'loose.json'), '{}');
    expect(discoverScenarios(dir, {})).toEqual(['a', 'b']);
    expect(discoverScenarios(dir, { ACP_SNAPSHOT_ONLY: 'b,zzz' })).toEqual(['b']);
    expect(discoverScenarios(join(dir, 'nope'), {})).toEqual([]);
    expect(scenarioPaths(dir, 'a').stdout).toBe(join(dir, 'scenarios', 'a', 'stdout.expected.jsonl'));
  } finally {
    await rm(dir, { recursive: true });
  }
});

test('the fixtures directory can be redirected for recording into a copy', () => {
  expect(fixturesDir({})).toBe(join(REPO_ROOT, 'fixtures'));
  expect(fixturesDir({ ACP_SNAPSHOT_FIXTURES: '/tmp/copy' })).toBe('/tmp/copy');
});

test('unknown scenario names on the command line are reported with the known ones', () => {
  expect(unknownScenarios(['a'], ['a', 'b'])).toBeUndefined();
  expect(unknownScenarios(['a', 'x'], ['a', 'b'])).toBe(
    'unknown scenario(s): x (known: a, b; a scenario is a directory with an input.json under fixtures/scenarios/)',
  );
});
