/**
 * Record mode (`--project=record`, never run by default): runs each scenario with the live adapter
 * against DeepSeek, any OpenAI-compatible server, or the bundled emulator
 * (`ACP_SNAPSHOT_BASE_URL=emulator`, scripted by scripts/emulator-scripts/NAME.json), harvests the
 * uncompressed log after a graceful shutdown, projects it, scrubs secrets and writes the fixtures.
 */
import { test } from './fixtures.js';
import { recordTarget } from './record-mode.js';
import { recordScenario } from './recorder.js';
import { discoverScenarios, fixturesDir, scenarioPaths } from './scenarios.js';

const fixtures = fixturesDir();

for (const name of discoverScenarios(fixtures)) {
  test(name, async ({ agentCommand }, testInfo) => {
    const target = recordTarget(process.env);
    const { newSidecars } = await recordScenario({
      paths: scenarioPaths(fixtures, name),
      fixtures,
      agentCommand,
      target,
      testInfo,
      step: (title, body) => test.step(title, body),
    });
    testInfo.annotations.push({
      type: 'recorded',
      description: `${name} (${newSidecars.length} new sidecar(s))`,
    });
  });
}
