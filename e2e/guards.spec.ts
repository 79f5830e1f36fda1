/**
 * The guards project: the committed fixture tree obeys every rule of docs/architecture.md, "Fixture-tree rules". One test per
 * scenario (titled by its name, so `npx playwright test -g NAME` runs that scenario's rules beside its
 * replay) and one per rule for what lies outside any scenario (sidecars, stray files); a report names
 * the rule broken. `npm run check` runs the same checks without Playwright.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { shortError } from '../harness/src/compare/short-error.js';
import { ALL_ROW_KINDS, checkFixtures, GUARD_RULES, type Violation } from '../harness/src/rules/guards.js';
import { discoverScenarios, fixturesDir, repoGuardOptions } from '../harness/src/scenario/corpus.js';

const fixtures = fixturesDir();
let violations: Promise<Violation[]> | undefined;
const all = () => {
  violations ??= checkFixtures(fixtures, repoGuardOptions(fixtures));
  return violations;
};
const shown = (vs: readonly Violation[]) => vs.map((v) => `[${v.rule}] ${v.message}`);

for (const name of discoverScenarios(fixtures)) {
  test(`${name}: fixture rules`, async () => {
    const found = (await all()).filter((v) => v.scenario === name);
    if (found.length > 0)
      throw shortError(`${name}: ${found.length} fixture rule violation(s):\n${shown(found).join('\n')}`);
  });
}

for (const rule of GUARD_RULES) {
  test(`fixtures: ${rule}`, async () => {
    if (rule === 'all-row-kinds') {
      test.skip(
        !existsSync(join(fixtures, 'scenarios', ALL_ROW_KINDS)),
        `no ${ALL_ROW_KINDS} scenario recorded yet`,
      );
    }
    // Scenario violations are reported by the scenario's own test above; a scenario the discovery does not
    // list (no input.json) has no test, so its violations are reported here.
    const listed = new Set(discoverScenarios(fixtures));
    const messages = (await all())
      .filter((v) => v.rule === rule && !(v.scenario && listed.has(v.scenario)))
      .map((v) => v.message);
    expect(messages, `guard "${rule}" found ${messages.length} problem(s)`).toEqual([]);
  });
}
