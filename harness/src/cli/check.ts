// `npm run check`: the fixture guards (docs/architecture.md, "Fixture-tree rules") without starting Playwright.
import { relative } from 'node:path';
import { checkFixtures } from '../rules/guards.js';
import { discoverScenarios, fixturesDir, REPO_ROOT, repoGuardOptions } from '../scenario/corpus.js';

const dir = fixturesDir();
const violations = await checkFixtures(dir, repoGuardOptions(dir));
const scenarios = discoverScenarios(dir, {}).length;
if (violations.length === 0) {
  console.log(`check: ${scenarios} scenario(s) in ${relative(REPO_ROOT, dir) || '.'}: every guard holds`);
} else {
  for (const v of violations) console.error(`[${v.rule}] ${v.message}`);
  console.error(`check: ${violations.length} problem(s) in ${scenarios} scenario(s)`);
  process.exitCode = 1;
}
