/**
 * Refresh mode (`--project=refresh`, never run by default): keyless. Replays each scenario with the
 * current code (ACP_SNAPSHOT_MODE=refresh: the replay plugin still serves the recorded model calls
 * positionally but does not compare request fingerprints), then rewrites session.jsonl and
 * stdout.expected.jsonl from what the agent did. It refuses when the model calls no longer line up
 * with the recording (a different number, order, turn or step): that needs a new recording.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { attachFailureArtifacts, replayFailures, unionReplayReports, unusedCallsProblem } from './compare.js';
import { DriverError } from './driver.js';
import { expect, test } from './fixtures.js';
import { recordedModelCalls } from './harvest.js';
import { machineSecrets, writeScenarioFixtures } from './record-mode.js';
import { type RunOutcome, runFixtureScenario } from './run.js';
import { discoverScenarios, fixturesDir, scenarioPaths } from './scenarios.js';

const fixtures = fixturesDir();

for (const name of discoverScenarios(fixtures)) {
  test(name, async ({ agentCommand }, testInfo) => {
    const paths = scenarioPaths(fixtures, name);
    const before = await readFile(paths.session, 'utf8');
    let outcome: RunOutcome;
    try {
      outcome = await runFixtureScenario({
        paths,
        mode: 'refresh',
        agentCommand,
        step: (t, b) => test.step(t, b),
      });
    } catch (e) {
      await attachFailureArtifacts(testInfo, e instanceof DriverError ? { result: e.result } : {});
      throw e;
    }
    const refuse = `${name}: refresh refused: the model calls no longer line up with the recording; re-record the scenario (npm run record -- ${name})`;
    try {
      expect(replayFailures(outcome.result.stderr, outcome.records), refuse).toEqual([]);
      const unused = unusedCallsProblem(
        name,
        unionReplayReports(outcome.result.stderr),
        recordedModelCalls(before, paths.session),
      );
      expect(unused, refuse).toBeUndefined();
      expect(outcome.result.problems, `${name}: scenario expectations (input.json)`).toEqual([]);
    } catch (e) {
      await attachFailureArtifacts(testInfo, {
        result: outcome.result,
        expectedLog: before,
        actualLog: outcome.projected.text,
      });
      throw e;
    }
    await test.step('rewrite session.jsonl and stdout.expected.jsonl', async () => {
      await writeScenarioFixtures(
        {
          dir: paths.dir,
          sidecarsDir: join(fixtures, 'sidecars'),
          sessionText: outcome.projected.text,
          stdoutText: outcome.stdoutText,
          sidecars: outcome.projected.sidecars,
        },
        machineSecrets(),
      );
    });
    testInfo.annotations.push({
      type: 'refreshed',
      description:
        before === outcome.projected.text
          ? `${name}: session.jsonl unchanged`
          : `${name}: session.jsonl rewritten`,
    });
  });
}
