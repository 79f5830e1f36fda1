/**
 * The guards project: the committed fixture tree obeys every rule of design section 6. One test per
 * rule, so a report names the rule broken; `npm run check` runs the same checks without Playwright.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ALL_ROW_KINDS, checkFixtures, GUARD_RULES, type Violation } from './guards.js';
import { fixturesDir, repoGuardOptions } from './scenarios.js';

const fixtures = fixturesDir();
let violations: Promise<Violation[]> | undefined;
const all = () => {
  violations ??= checkFixtures(fixtures, repoGuardOptions(fixtures));
  return violations;
};

for (const rule of GUARD_RULES) {
  test(`fixtures: ${rule}`, async () => {
    if (rule === 'all-row-kinds') {
      test.skip(
        !existsSync(join(fixtures, 'scenarios', ALL_ROW_KINDS)),
        `no ${ALL_ROW_KINDS} scenario recorded yet`,
      );
    }
    const messages = (await all()).filter((v) => v.rule === rule).map((v) => v.message);
    expect(messages, `guard "${rule}" found ${messages.length} problem(s)`).toEqual([]);
  });
}
