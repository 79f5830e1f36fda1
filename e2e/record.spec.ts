/**
 * Record mode (`--project=record`, never run by default): runs each scenario with the live adapter
 * against DeepSeek, any OpenAI-compatible server, or the bundled emulator
 * (`ACP_SNAPSHOT_BASE_URL=emulator`, scripted by scripts/emulator-scripts/NAME.json), harvests the
 * uncompressed log after a graceful shutdown, projects it, scrubs secrets and writes the fixtures.
 * A scenario without an emulator script calls no model and records without a key (recordTargetFor).
 */

import { recordScenario, recordTargetFor } from '../harness/src/modes/record.js';
import { flaggedLines, formatReview, recordAdvice } from '../harness/src/modes/review-format.js';
import { discoverScenarios, fixturesDir, scenarioPaths } from '../harness/src/scenario/corpus.js';
import { test } from '../harness/src/testing/suite-test.js';

const fixtures = fixturesDir();

for (const name of discoverScenarios(fixtures)) {
  test(name, async ({ agentCommand, agents, runDirs }, testInfo) => {
    const target = recordTargetFor(name, process.env);
    const { newSidecars, review } = await recordScenario({
      paths: scenarioPaths(fixtures, name),
      fixtures,
      agentCommand,
      agents,
      target,
      dirs: runDirs,
      testInfo,
      step: (title, body) => test.step(title, body),
    });
    testInfo.annotations.push({
      type: 'recorded',
      description: `${name} (${newSidecars.length} new sidecar(s))`,
    });
    // The re-recording against the fixture it replaced, call by call; a flagged call is model nondeterminism.
    if (review === undefined) return;
    const text =
      typeof review === 'string'
        ? `${name}: ${review}`
        : `the re-recording of ${name}, call by call against the fixture it replaced:\n${formatReview(review, recordAdvice(name))}`;
    console.log(text);
    await testInfo.attach('review.txt', { body: text, contentType: 'text/plain' });
    if (typeof review !== 'string')
      for (const line of flaggedLines(review))
        testInfo.annotations.push({ type: 'nondeterminism', description: line });
  });
}
