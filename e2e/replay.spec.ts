/**
 * Keyless replay of every committed scenario: one test per scenario directory, titled by its name
 * (`npx playwright test -g NAME`). The agent runs with its replay overlay; its stdout must equal
 * stdout.expected.jsonl and what it left in the workspace workspace.expected.json (snapshots:
 * `--update-snapshots` rewrites them), its re-persisted, projected log must equal session.jsonl, and
 * its log file on disk must be what its persistence promises (run.ts). A failed test keeps its
 * generated directories and names them in the report ("kept for inspection").
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { TestInfo } from '@playwright/test';
import {
  CAUSE_ANNOTATION,
  CAUSE_TEXT,
  type Cause,
  driftCause,
  jsonLinesCause,
  logCause,
  perTestDriftText,
  workspaceCause,
} from '../harness/src/compare/causes.js';
import {
  attachFailureArtifacts,
  driverFailureArtifacts,
  nonJsonLines,
  replayFailureMessage,
  replayFailures,
  sessionLogExpect,
  stdoutMismatchMessage,
  unusedRecordedCalls,
} from '../harness/src/compare/compare.js';
import { adoptRecordedProvider } from '../harness/src/compare/harvest.js';
import { normalizeJsonlText } from '../harness/src/compare/normalize.js';
import { shortError } from '../harness/src/compare/short-error.js';
import { WORKSPACE_EXPECTED, workspaceMismatchMessage } from '../harness/src/compare/workspace.js';
import { DriverError } from '../harness/src/driver/driver.js';
import { type RunOutcome, runFixtureScenario } from '../harness/src/modes/scenario-run.js';
import { discoverScenarios, fixturesDir, REPO_ROOT, scenarioPaths } from '../harness/src/scenario/corpus.js';
import { expect, test } from '../harness/src/testing/suite-test.js';

const fixtures = fixturesDir();

/** Tells the summary reporter why this scenario failed, so failures sharing a cause are summarized once. */
function noteCause(testInfo: TestInfo, cause: Cause | undefined): void {
  if (!cause) return;
  testInfo.annotations.push({ type: CAUSE_ANNOTATION, description: JSON.stringify(cause) });
  testInfo.annotations.push({ type: CAUSE_TEXT, description: cause.detail });
}
/** A fixture path as messages show it: repository-relative, or absolute for a fixtures copy elsewhere. */
const shown = (p: string) => (relative(REPO_ROOT, p).startsWith('..') ? p : relative(REPO_ROOT, p));

for (const name of discoverScenarios(fixtures)) {
  test(name, async ({ agentCommand, agents, runDirs }, testInfo) => {
    const paths = scenarioPaths(fixtures, name);
    const expectedLog = await readFile(paths.session, 'utf8').catch(() => undefined);
    let outcome: RunOutcome | undefined;
    try {
      outcome = await runFixtureScenario({
        paths,
        mode: 'replay',
        dirs: runDirs,
        agentCommand,
        agents,
        step: (title, body) => test.step(title, body),
      });
    } catch (e) {
      await attachFailureArtifacts(testInfo, driverFailureArtifacts(e));
      // A step that failed because replay could not serve the model: the drift is the cause, the step its symptom.
      const failures = e instanceof DriverError ? replayFailures(e.result.stderr, []) : [];
      if (failures.length === 0) throw e;
      noteCause(testInfo, driftCause(failures));
      const step = /^[^:]*: (step \d+ \([^\n]*?\)): /.exec(e instanceof Error ? e.message : '')?.[1];
      throw shortError(replayFailureMessage(name, [perTestDriftText(failures.join('\n'))], step));
    }
    const { result, projected, stdoutText } = outcome;
    // The replayed header names the replay plugin; the recording's provider is adopted before comparing (harvest.ts).
    const actualLog = adoptRecordedProvider(projected.text, expectedLog);
    // Read by `npm run bench -- suite` to separate harness overhead from the agent's own lifetime.
    testInfo.annotations.push({
      type: 'agent-process-ms',
      description: String(result.processMs.reduce((a, b) => a + b, 0)),
    });
    const expectedStdout = await readFile(paths.stdout, 'utf8').catch(() => '');
    let threw = false;
    // Set once the surfaces are compared: a run that stopped at a drift has no diff worth showing.
    let compared = false;
    try {
      await test.step('compare with the fixtures', async () => {
        const failures = replayFailures(result.stderr, outcome.records);
        if (failures.length > 0) {
          noteCause(testInfo, driftCause(failures));
          throw shortError(replayFailureMessage(name, [perTestDriftText(failures.join('\n'))]));
        }
        expect
          .soft(result.problems, `${name}: input.json's expectations, orphans, the agent's log file on disk`)
          .toEqual([]);
        const unused = unusedRecordedCalls(name, result.stderr, expectedLog, paths.session);
        // Checked only when they fail, so a passing test shows no step titled like a failure.
        if (unused) expect.soft(unused, 'every recorded model call is made').toBeUndefined();
        if (expectedLog === undefined)
          throw shortError(
            `${relative(REPO_ROOT, paths.session)} is missing; record it: npm run record -- ${name}`,
          );
        compared = true;
        sessionLogExpect.soft(actualLog).toMatchSessionLog({
          text: expectedLog ?? '',
          file: relative(REPO_ROOT, paths.session),
          scenario: name,
        });
        expect
          .soft(nonJsonLines(expectedStdout), `${relative(REPO_ROOT, paths.stdout)}: every line must be JSON`)
          .toEqual([]);
        if (expectedLog !== undefined && normalizeJsonlText(actualLog) !== normalizeJsonlText(expectedLog))
          noteCause(
            testInfo,
            logCause(normalizeJsonlText(expectedLog), normalizeJsonlText(actualLog), {
              dir: paths.sidecars,
              live: projected.sidecars,
            }),
          );
        const stdoutCause =
          stdoutText === expectedStdout ? undefined : jsonLinesCause('stdout', expectedStdout, stdoutText);
        noteCause(testInfo, stdoutCause);
        // The changed field and transcript lead the message: the lines of the diff below are too long to show it.
        expect
          .soft(stdoutText, stdoutCause && stdoutMismatchMessage(name, expectedStdout, stdoutText))
          .toMatchSnapshot([name, 'stdout.expected.jsonl']);
        const expectedWorkspace = await readFile(paths.workspaceExpected, 'utf8').catch(() => undefined);
        const workspaceFile = shown(paths.workspaceExpected);
        if (expectedWorkspace !== outcome.workspaceText)
          noteCause(testInfo, workspaceCause(expectedWorkspace, outcome.workspaceText));
        expect
          .soft(
            outcome.workspaceText,
            expectedWorkspace === outcome.workspaceText
              ? undefined
              : workspaceMismatchMessage(name, workspaceFile, expectedWorkspace, outcome.workspaceText),
          )
          .toMatchSnapshot([name, WORKSPACE_EXPECTED]);
      });
    } catch (e) {
      threw = true;
      throw e;
    } finally {
      if (threw || testInfo.errors.length > 0) {
        await attachFailureArtifacts(testInfo, {
          result,
          ...(expectedLog !== undefined && compared ? { expectedLog } : {}),
          actualLog,
          rawLog: outcome.rawLog,
          ...(compared ? { expectedStdout, actualStdout: stdoutText } : {}),
        });
      }
    }
  });
}
