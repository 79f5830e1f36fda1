/**
 * The scenario-suite generator: `scenarioSuite()` in a spec file turns a directory of committed
 * scenarios (`fixtures/scenarios/NAME/`) into Playwright tests, one per scenario, titled by its name
 * (`npx playwright test -g NAME`), plus the fixture-tree rules (tagged {@link GUARDS_TAG}: one test per
 * scenario and one per rule for what lies outside any scenario). What a scenario test does is the
 * project's `acpMode`: replay (compare with the fixtures; `--update-snapshots` rewrites stdout and the
 * workspace), record (run against a live model and write the fixtures) or refresh (replay the recorded
 * answers through the current code and rewrite the fixtures). `scenarioProjects()` makes the projects.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect as baseExpect, type TestInfo } from '@playwright/test';
import { readExpected } from '../compare/snapshot-store.js';
import { driftFindings, type Finding, replayVerdict } from '../compare/verdict.js';
import { WORKSPACE_EXPECTED } from '../compare/workspace.js';
import { noteTestCause, writeTestWire } from '../coverage/coverage-records.js';
import { DriverError } from '../driver/driver.js';
import { expect } from '../matchers.js';
import { recordScenario, recordTargetFor } from '../modes/record.js';
import { refreshScenario } from '../modes/refresh.js';
import { flaggedLines, formatReview, recordAdvice } from '../modes/review-format.js';
import { type RunOutcome, runCorpusScenario } from '../modes/scenario-run.js';
import { type AgentProfile, profileCommands, profileRules } from '../profile.js';
import type { Cause } from '../report/causes.js';
import { attachConversation } from '../report/conversation.js';
import { attachFailureArtifacts, driverFailureArtifacts } from '../report/failure-artifacts.js';
import { shortError } from '../report/short-error.js';
import { ALL_ROW_KINDS, checkFixtures, GUARD_RULES, type Violation } from '../rules/guards.js';
import { checkSnapshotTrees } from '../rules/snapshot-tree.js';
import {
  discoverScenarios,
  fixturesDir,
  REPO_ROOT,
  repoGuardOptions,
  scenarioPaths,
} from '../scenario/corpus.js';
import { scenarioStepLocations } from './step-location.js';
import {
  GUARDS_TAG,
  type SuiteFixtures,
  type SuiteMode,
  type SuiteOptions,
  suiteTest as test,
} from './suite-test.js';
import { declareAt } from './test-location.js';

/** The body of a scenario test: the suite's fixtures it uses. */
type ScenarioBody = (
  fixtures: SuiteOptions & SuiteFixtures & { agentProfile: AgentProfile },
  testInfo: TestInfo,
) => Promise<void>;

export interface ScenarioSuiteOptions {
  /** The fixtures directory (default: `ACP_SNAPSHOT_FIXTURES`, else `fixtures/` of the project root). */
  fixtures?: string;
}

/** Declares the tests of every scenario under the fixtures directory. Call it once, at the top of a spec file. */
export function scenarioSuite(opts: ScenarioSuiteOptions = {}): void {
  const fixtures = opts.fixtures ?? fixturesDir();
  const names = discoverScenarios(fixtures);
  for (const name of names) {
    declareAt<ScenarioBody>(
      scenarioPaths(fixtures, name).input,
      test,
      name,
      async ({ acpMode, agentProfile, agents, runDirs }, testInfo) => {
        const paths = scenarioPaths(fixtures, name);
        const locate = scenarioStepLocations(paths.input);
        const run = {
          paths,
          fixtures,
          agentCommand: agentProfile.command,
          agents: profileCommands(agents),
          rules: profileRules(agentProfile, agents),
          dirs: runDirs,
          testInfo,
          step: <T>(title: string, body: () => Promise<T>, at?: { step: number }) =>
            test.step(title, body, { location: locate(at) }),
        };
        if (acpMode === 'record') return recordOne(name, run, testInfo);
        if (acpMode === 'refresh') {
          const { changed } = await refreshScenario(run);
          testInfo.annotations.push({
            type: 'refreshed',
            description: `${name}: session.jsonl ${changed ? 'rewritten' : 'unchanged'}`,
          });
          return;
        }
        await replayOne(name, run, testInfo);
      },
    );
  }
  guardTests(fixtures, names);
}

type SuiteRun = Parameters<typeof refreshScenario>[0] & {
  step: NonNullable<Parameters<typeof refreshScenario>[0]['step']>;
};

/** `expect.soft(finding).toBeNoFinding()`: fails with the finding's own message, nothing else around it. */
const findingExpect = baseExpect.extend({
  toBeNoFinding(received: Finding | undefined) {
    return { pass: !received, name: 'toBeNoFinding', message: () => received?.message ?? 'no finding' };
  },
});

/** Tells the run why this scenario failed, so failures sharing a cause are summarized once. */
function noteCause(testInfo: TestInfo, cause: Cause | undefined): void {
  if (cause) noteTestCause(testInfo, cause);
}

/** Replays one scenario and reports the verdict: one soft error per finding, the surfaces as snapshots. */
async function replayOne(name: string, run: SuiteRun, testInfo: TestInfo): Promise<void> {
  const expected = await readExpected(run.paths);
  let outcome: RunOutcome;
  try {
    outcome = await runCorpusScenario({ ...run, mode: 'replay' });
  } catch (e) {
    await attachFailureArtifacts(testInfo, driverFailureArtifacts(e));
    // A step that failed because replay could not serve the model: the drift is the cause, the step its symptom.
    const [drift] = e instanceof DriverError ? driftFindings(name, e.result.stderr, e.step) : [];
    if (!drift) throw e;
    noteCause(testInfo, drift.cause);
    throw shortError(drift.message);
  }
  writeTestWire(testInfo, outcome.result.sent, outcome.result.stdout);
  // Read by `npm run bench -- suite` to separate harness overhead from the agent's own lifetime.
  testInfo.annotations.push({
    type: 'agent-process-ms',
    description: String(outcome.result.processMs.reduce((a, b) => a + b, 0)),
  });
  const verdict = replayVerdict(run.paths, outcome, expected, REPO_ROOT);
  const of = (kind: Finding['kind']) => verdict.findings.find((f) => f.kind === kind);
  try {
    // Located at the expected stdout: what the step compares against (and no stack to capture).
    const compared = { file: run.paths.stdout, line: 1, column: 1 };
    await test.step(
      'compare with the fixtures',
      async () => {
        for (const f of verdict.findings) noteCause(testInfo, f.cause);
        const stop = of('replay') ?? of('missing');
        if (stop) throw shortError(stop.message);
        for (const f of verdict.findings.filter(
          (f) => f.kind === 'run' || f.kind === 'unused' || f.kind === 'log',
        ))
          findingExpect.soft(f).toBeNoFinding();
        // Snapshots, so `--update-snapshots` rewrites these two and nothing else.
        expect
          .soft(outcome.stdoutText, of('stdout')?.message)
          .toMatchSnapshot([name, 'stdout.expected.jsonl']);
        expect
          .soft(outcome.workspaceText, of('workspace')?.message)
          .toMatchSnapshot([name, WORKSPACE_EXPECTED]);
      },
      { location: compared },
    );
  } finally {
    await attachConversation(testInfo, {
      actual: outcome.stdoutText,
      sent: outcome.result.sent.map((l) => l.text),
      expected: verdict.compared ? expected.stdout : undefined,
    });
    if (testInfo.errors.length > 0 || verdict.findings.length > 0) {
      await attachFailureArtifacts(testInfo, {
        result: outcome.result,
        ...(expected.log !== undefined && verdict.compared ? { expectedLog: expected.log } : {}),
        actualLog: verdict.actualLog,
        rawLog: outcome.rawLog,
        ...(verdict.compared
          ? { expectedStdout: expected.stdout ?? '', actualStdout: outcome.stdoutText }
          : {}),
      });
    }
  }
}

/** Records one scenario and shows the re-recording against the fixture it replaced, call by call. */
async function recordOne(name: string, run: SuiteRun, testInfo: TestInfo): Promise<void> {
  const { newSidecars, review } = await recordScenario({
    ...run,
    target: recordTargetFor(name, process.env),
  });
  testInfo.annotations.push({
    type: 'recorded',
    description: `${name} (${newSidecars.length} new sidecar(s))`,
  });
  if (review === undefined) return;
  const text =
    typeof review === 'string'
      ? `${name}: ${review}`
      : `the re-recording of ${name}, call by call against the fixture it replaced:\n${formatReview(review, recordAdvice(name))}`;
  console.log(text);
  await testInfo.attach('review.txt', { body: text, contentType: 'text/plain' });
  // A flagged call is model nondeterminism: the same request got another answer.
  if (typeof review !== 'string')
    for (const line of flaggedLines(review))
      testInfo.annotations.push({ type: 'nondeterminism', description: line });
}

/** The fixture-tree rules: one test per scenario, one per rule for what lies outside any scenario. */
function guardTests(fixtures: string, names: readonly string[]): void {
  let violations: Promise<Violation[]> | undefined;
  const all = (agents: Readonly<Record<string, AgentProfile>>) => {
    violations ??= checkFixtures(fixtures, repoGuardOptions(fixtures, profileCommands(agents)));
    return violations;
  };
  const shown = (vs: readonly Violation[]) => vs.map((v) => `[${v.rule}] ${v.message}`);
  for (const name of names) {
    test(`${name}: fixture rules`, { tag: GUARDS_TAG }, async ({ agents }) => {
      const found = (await all(agents)).filter((v) => v.scenario === name);
      if (found.length > 0)
        throw shortError(`${name}: ${found.length} fixture rule violation(s):\n${shown(found).join('\n')}`);
    });
  }
  const listed = new Set(names);
  for (const rule of GUARD_RULES) {
    test(`fixtures: ${rule}`, { tag: GUARDS_TAG }, async ({ agents }) => {
      if (rule === 'all-row-kinds')
        test.skip(
          !existsSync(join(fixtures, 'scenarios', ALL_ROW_KINDS)),
          `no ${ALL_ROW_KINDS} scenario recorded yet`,
        );
      // A scenario the discovery does not list (no input.json) has no test of its own: reported here.
      const messages = (await all(agents))
        .filter((v) => v.rule === rule && !(v.scenario && listed.has(v.scenario)))
        .map((v) => v.message);
      expect(
        messages,
        `guard "${rule}" found ${messages.length} problem(s) in ${relative(REPO_ROOT, fixtures) || '.'}`,
      ).toEqual([]);
    });
  }
  // The snapshot trees of the project's acp-fixture tests (`__acp__/`: exchange logs, sidecars, snapshots).
  test('fixtures: snapshot trees', { tag: GUARDS_TAG }, async () => {
    const { trees, violations: found } = await checkSnapshotTrees(REPO_ROOT);
    test.skip(trees.length === 0, 'no __acp__ snapshot tree in the project');
    expect(
      found.map((v) => `[${v.rule}] ${v.message}`),
      `${found.length} problem(s) in ${trees.join(', ')}`,
    ).toEqual([]);
  });
}

export { GUARDS_TAG, type SuiteMode };
