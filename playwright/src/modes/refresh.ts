/**
 * Refresh: keyless re-derivation of a scenario's session.jsonl, stdout.expected.jsonl and
 * workspace.expected.json from the current code. The replay plugin (ACP_SNAPSHOT_MODE=refresh) serves
 * the recorded model answers positionally without comparing request fingerprints; when the calls no
 * longer line up (more, fewer, or at another turn / step) refresh refuses and asks for a new recording.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordCommand } from '@acp-snapshot/core';
import { machineSecrets } from '@acp-snapshot/model-http';
import type { TestInfo } from '@playwright/test';
import { adoptRecordedProvider, recordsWithRecordedProvider } from '../compare/harvest.js';
import { replayVerdict } from '../compare/verdict.js';
import type { StepRunner } from '../driver/driver.js';
import type { ScenarioRules } from '../profile.js';
import { attachFailureArtifacts, driverFailureArtifacts } from '../report/failure-artifacts.js';
import type { RunDirs } from '../roots/run-dirs.js';
import { ALL_ROW_KINDS } from '../rules/guards.js';
import { REPO_ROOT, type ScenarioPaths } from '../scenario/corpus.js';
import { writeScenarioFixtures } from './fixture-write.js';
import { writeAllRowKindsSource } from './record.js';
import { refreshOverride } from './refresh-override.js';
import { type RunOutcome, runCorpusScenario } from './scenario-run.js';

/** Options of {@link refreshScenario}. */
export interface RefreshOptions {
  paths: ScenarioPaths;
  fixtures: string;
  /** The replay command (refresh runs the agent exactly as replay does). */
  agentCommand: readonly string[];
  /** Named agents a scenario may pick (the project's `use.agents`). */
  agents?: Readonly<Record<string, readonly string[]>>;
  /** The agent profiles' `normalize` rules, applied to the scenario's stdout. */
  rules?: ScenarioRules;
  /** Owns the run's generated roots (the test's `runDirs` fixture). */
  dirs: RunDirs;
  testInfo?: TestInfo;
  step?: StepRunner;
}

/** Refreshes one scenario's fixtures; returns whether session.jsonl changed. Throws "refresh refused" on drift. */
export async function refreshScenario(opts: RefreshOptions): Promise<{ changed: boolean }> {
  const { paths, testInfo } = opts;
  const name = paths.name;
  const before = await readFile(paths.session, 'utf8');
  let outcome: RunOutcome;
  try {
    outcome = await runCorpusScenario({
      paths,
      mode: 'refresh',
      dirs: opts.dirs,
      agentCommand: opts.agentCommand,
      ...(opts.agents ? { agents: opts.agents } : {}),
      ...(opts.rules ? { rules: opts.rules } : {}),
      ...(opts.step ? { step: opts.step } : {}),
    });
  } catch (e) {
    if (testInfo) await attachFailureArtifacts(testInfo, driverFailureArtifacts(e));
    throw e;
  }
  // The surfaces are what a refresh rewrites; what it cannot rewrite (drift, unused calls, the run's own
  // problems) refuses it.
  const { findings } = replayVerdict(
    paths,
    outcome,
    { log: before, stdout: undefined, workspace: undefined },
    REPO_ROOT,
  );
  const problems = findings
    .filter((f) => f.kind === 'replay' || f.kind === 'unused' || f.kind === 'run')
    .map((f) => f.message);
  if (problems.length > 0) {
    if (testInfo) {
      await attachFailureArtifacts(testInfo, {
        result: outcome.result,
        expectedLog: before,
        actualLog: outcome.projected.text,
      });
    }
    throw new Error(
      `${name}: refresh refused: the model calls no longer line up with the recording; re-record the scenario (${recordCommand(name)}).\n  ${problems.join('\n  ')}`,
    );
  }
  const sessionText = adoptRecordedProvider(outcome.projected.text, before);
  const secrets = machineSecrets();
  await writeScenarioFixtures(
    {
      dir: paths.dir,
      sidecarsDir: join(opts.fixtures, 'sidecars'),
      sessionText,
      stdoutText: outcome.stdoutText,
      workspaceText: outcome.workspaceText,
      sidecars: outcome.projected.sidecars,
    },
    secrets,
  );
  // Every fixture kind follows: the all-row-kinds source, and the hashes an override ties its calls by.
  if (name === ALL_ROW_KINDS) {
    const records = recordsWithRecordedProvider(outcome.records, before);
    await writeAllRowKindsSource(paths, { records, roots: outcome.roots }, secrets);
  }
  const override =
    outcome.scenario.flags.overridden && (await refreshOverride(paths.override, outcome.records));
  return { changed: sessionText !== before || override };
}
