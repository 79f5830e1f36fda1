/**
 * Refresh mode (`--project=refresh`, never run by default): keyless. Replays each scenario with the
 * current code and rewrites session.jsonl, stdout.expected.jsonl and workspace.expected.json from
 * what the agent did; refuses when the model calls no longer line up with the recording (see
 * refresher.ts).
 */

import { refreshScenario } from '../harness/src/modes/refresh.js';
import { discoverScenarios, fixturesDir, scenarioPaths } from '../harness/src/scenario/corpus.js';
import { test } from '../harness/src/testing/suite-test.js';

const fixtures = fixturesDir();

for (const name of discoverScenarios(fixtures)) {
  test(name, async ({ agentCommand, agents, runDirs }, testInfo) => {
    const { changed } = await refreshScenario({
      paths: scenarioPaths(fixtures, name),
      fixtures,
      agentCommand,
      agents,
      dirs: runDirs,
      testInfo,
      step: (title, body) => test.step(title, body),
    });
    testInfo.annotations.push({
      type: 'refreshed',
      description: `${name}: session.jsonl ${changed ? 'rewritten' : 'unchanged'}`,
    });
  });
}
