/**
 * One run of a committed scenario against an agent command: isolated roots, the scrubbed
 * environment of the mode, the driver, and the harvested + projected log. Shared by the replay,
 * record and refresh specs.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { LogRecord } from '@acp-snapshot/session-log';
import { stdoutSnapshotText } from './compare.js';
import { type AgentEnvInput, agentEnv, type DriverResult, runScenario, type StepRunner } from './driver.js';
import { harvestLog, projectHarvested } from './harvest.js';
import { createTestRoots, removeTestRoots, type TestRoots } from './roots.js';
import { loadScenario, type Scenario } from './scenario.js';
import type { ScenarioPaths } from './scenarios.js';

/** What one run produced. */
export interface RunOutcome {
  scenario: Scenario;
  roots: TestRoots;
  result: DriverResult;
  /** The harvested log file's text (raw, with envelopes), '' when the agent persisted none. */
  rawLog: string;
  records: LogRecord[];
  /** The fixture projection of the harvested log and its sidecars. */
  projected: { text: string; sidecars: Record<string, string> };
  /** Normalized stdout, as stored in stdout.expected.jsonl. */
  stdoutText: string;
}

/** Options of {@link runFixtureScenario}. */
export interface RunOptions {
  paths: ScenarioPaths;
  mode: AgentEnvInput['mode'];
  agentCommand: readonly string[];
  step?: StepRunner;
  /** Record mode: the model endpoint and key given to the agent. */
  baseUrl?: string;
  apiKey?: string;
}

/** Runs a scenario once and harvests everything; the roots are removed before returning. */
export async function runFixtureScenario(opts: RunOptions): Promise<RunOutcome> {
  const { paths } = opts;
  if (opts.agentCommand.length === 0) {
    throw new Error(
      'no agent command: set `use: { agentCommand: [...] }` for this project in playwright.config.ts',
    );
  }
  const scenario = await loadScenario(paths.input);
  const rootsOpts: { seedDir: string; workspaceParent?: string } = { seedDir: paths.workspace };
  if (scenario.flags.workspaceParent) rootsOpts.workspaceParent = scenario.flags.workspaceParent;
  const roots = await createTestRoots(paths.name, rootsOpts);
  try {
    const envInput: AgentEnvInput = {
      mode: opts.mode,
      scenario: paths.name,
      persistRoot: roots.persistRoot,
      spillRoot: roots.spillRoot,
      home: roots.home,
    };
    if (opts.mode !== 'record') {
      if (!existsSync(paths.session)) {
        throw new Error(
          `${paths.session}: missing; record the scenario first: npm run record -- ${paths.name}`,
        );
      }
      envInput.fixture = paths.session;
    }
    if (scenario.flags.overridden) envInput.override = paths.override;
    if (opts.baseUrl) envInput.baseUrl = opts.baseUrl;
    if (opts.apiKey) envInput.apiKey = opts.apiKey;
    const driverOpts = {
      command: opts.agentCommand,
      env: agentEnv(envInput),
      processCwd: roots.cwd,
      sessionCwd: roots.cwd,
      fsRoot: roots.root,
      scenario,
      name: paths.name,
      ...(opts.step ? { step: opts.step } : {}),
    };
    const result = await runScenario(driverOpts);
    const harvested = await harvestLog(roots.persistRoot);
    return {
      scenario,
      roots,
      result,
      rawLog: harvested && !harvested.file.endsWith('.gz') ? await readFile(harvested.file, 'utf8') : '',
      records: harvested?.records ?? [],
      projected: projectHarvested(harvested, roots),
      stdoutText: stdoutSnapshotText(result, roots),
    };
  } finally {
    await removeTestRoots(roots);
  }
}
