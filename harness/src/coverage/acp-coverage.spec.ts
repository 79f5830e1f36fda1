/**
 * The run's protocol coverage, as a test of its own: the teardown project that `defineAcpConfig()` and
 * `scenarioProjects()` add (`acp-coverage`) runs it after the agent projects, so its report attachments sit
 * in the Playwright report beside the tests. With the project's `metadata.failOnGap`, a declared capability,
 * mode or config option that no test exercised fails it.
 */
import { test } from '@playwright/test';
import { computeCoverage } from './coverage.js';
import { coverageHtml, coverageText } from './coverage-format.js';
import { readTestWires } from './coverage-records.js';

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads a test's fixtures from this pattern.
test('ACP protocol coverage', async ({}, testInfo) => {
  const dirs = [...new Set(testInfo.config.projects.map((p) => p.outputDir))];
  const coverage = computeCoverage(readTestWires(dirs).filter((w) => w.project !== testInfo.project.name));
  const text = coverageText(coverage);
  await testInfo.attach('coverage.html', { body: coverageHtml(coverage), contentType: 'text/html' });
  await testInfo.attach('coverage.txt', { body: text, contentType: 'text/plain' });
  await testInfo.attach('coverage.json', {
    body: JSON.stringify(coverage, null, 2),
    contentType: 'application/json',
  });
  const gaps = coverage.projects.reduce((n, p) => n + p.gaps.length, 0);
  testInfo.annotations.push({
    type: 'coverage',
    description: coverage.projects
      .map((p) => `${p.project}: ${p.tests} test(s), ${p.gaps.length} declared but never exercised`)
      .join('; '),
  });
  if (testInfo.project.metadata?.failOnGap && gaps > 0)
    throw new Error(
      `${gaps} declared capabilit${gaps === 1 ? 'y' : 'ies'}, mode(s) or config option(s) never exercised (failOnGap is set):\n${coverage.projects
        .flatMap((p) => p.gaps.map((g) => `  ${p.project}: ${g.message}`))
        .join('\n')}\nAdd a test that exercises each, or turn the option off: coverage: { failOnGap: false }`,
    );
});
