/**
 * The run's protocol coverage and its failures by cause, as a test of its own: the teardown project that `defineAcpConfig()` and
 * `scenarioProjects()` add (`acp-coverage`) runs it after the agent projects, so its report attachments sit
 * in the Playwright report beside the tests. With the project's `metadata.failOnGap`, a declared capability,
 * mode or config option that no test exercised fails it.
 */
import { test } from '@playwright/test';
import { addCause, type Group, summarize } from '../report/cause-summary.js';
import { computeCoverage } from './coverage.js';
import { coverageHtml, coverageText } from './coverage-format.js';
import { readTestCauses, readTestWires } from './coverage-records.js';

/** The output directories of the run's projects: where their tests kept their wires and causes. */
const outputDirs = () => [...new Set(test.info().config.projects.map((p) => p.outputDir))];

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads a test's fixtures from this pattern.
test('ACP protocol coverage and failures by cause', async ({}, testInfo) => {
  // The red run's summary, one block per shared cause with the command that accepts it, as the terminal
  // prints it: a reviewer sees that 36 failures are one change without opening each.
  const groups = new Map<string, Group>();
  for (const { scenario, causes } of readTestCauses(outputDirs()))
    for (const cause of causes) addCause(groups, scenario, cause);
  const wires = readTestWires(outputDirs());
  const summary = summarize([...groups.values()], wires.filter((w) => w.project === 'replay').length).trim();
  if (summary) {
    testInfo.annotations.push({ type: 'failures by cause', description: summary });
    await testInfo.attach('failures-by-cause.txt', { body: summary, contentType: 'text/plain' });
  }
  const coverage = computeCoverage(wires.filter((w) => w.project !== testInfo.project.name));
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
