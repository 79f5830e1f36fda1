/**
 * One run of a committed scenario against an agent command: isolated roots, the scrubbed
 * environment of the mode, the driver, and the harvested + projected log. Shared by the replay,
 * record and refresh specs.
 */

import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordCommand } from '@acp-snapshot/core';
import type { LogRecord } from '@acp-snapshot/session-log';
import { harvestLog, observedHeaderOnlyLog, persistedLogText, projectHarvested } from '../compare/harvest.js';
import { persistedLogProblem } from '../compare/log-file.js';
import { stdoutSnapshotText } from '../compare/surfaces.js';
import { captureWorkspace } from '../compare/workspace.js';
import {
  type AgentEnvInput,
  agentEnv,
  DriverError,
  type DriverResult,
  driveScenario,
  type StepRunner,
} from '../driver/driver.js';
import { orphansMessage, reapOrphans } from '../process/orphans.js';
import type { ScenarioRules } from '../profile.js';
import {
  agentRoots,
  createTestRoots,
  installDir,
  type RootsOptions,
  rootMap,
  type TestRoots,
} from '../roots/roots.js';
import type { RunDirs } from '../roots/run-dirs.js';
import type { ScenarioPaths } from '../scenario/corpus.js';
import { expandScenarioRoots, loadScenario, namedAgentCommand, type Scenario } from '../scenario/input.js';

/** What one run produced. */
export interface RunOutcome {
  scenario: Scenario;
  roots: TestRoots;
  result: DriverResult;
  /** The harvested log file's text (raw, with envelopes), '' when the agent persisted none. */
  rawLog: string;
  records: LogRecord[];
  /**
   * The fixture projection of the harvested log and its sidecars; when the agent persisted none but
   * a session was created, the header-only log the harness built from what it observed.
   */
  projected: { text: string; sidecars: Record<string, string> };
  /** Who wrote the compared log: the agent, the harness (the agent persisted none), or nobody (no session). */
  logSource: 'agent' | 'harness' | 'none';
  /** Normalized stdout, as stored in stdout.expected.jsonl. */
  stdoutText: string;
  /** What the agent left in the seeded directory against the seed, as stored in workspace.expected.json. */
  workspaceText: string;
}

/** Options of {@link runCorpusScenario}. */
export interface RunOptions {
  paths: ScenarioPaths;
  mode: AgentEnvInput['mode'];
  /** Owns the run's generated roots: the caller removes them when its test passed, keeps them when it failed. */
  dirs: RunDirs;
  /** The command of a scenario that names no `agent`. */
  agentCommand: readonly string[];
  /** Named commands a scenario may pick with `"agent": NAME` (the project's `use.agents`). */
  agents?: Readonly<Record<string, readonly string[]>>;
  /** The agent profiles' `normalize` rules, applied to the scenario's stdout. */
  rules?: ScenarioRules;
  step?: StepRunner;
  /** Record mode: the model endpoint and key given to the agent. */
  baseUrl?: string;
  apiKey?: string;
}

/**
 * The command line a scenario runs: the named agent of its `"agent"` field, else the project's
 * agent command. An unknown name is a ScenarioError naming the file and the known names.
 */
export function scenarioAgentCommand(
  scenario: Pick<Scenario, 'agent'>,
  file: string,
  opts: Pick<RunOptions, 'agentCommand' | 'agents'>,
): readonly string[] {
  if (scenario.agent === undefined) {
    if (opts.agentCommand.length === 0) {
      throw new Error(
        'no agent command: set `use: { agentCommand: [...] }` for this project in playwright.config.ts',
      );
    }
    return opts.agentCommand;
  }
  return namedAgentCommand(scenario.agent, file, opts.agents ?? {});
}

/** The `normalize` rules of the agent a scenario runs: its named agent's, else the project's. */
function scenarioRules(scenario: Pick<Scenario, 'agent'>, rules: ScenarioRules | undefined) {
  return scenario.agent === undefined ? rules?.project : rules?.agents?.[scenario.agent];
}

/** Runs a scenario once and harvests everything; the roots stay, owned by `opts.dirs`. */
export async function runCorpusScenario(opts: RunOptions): Promise<RunOutcome> {
  const { paths } = opts;
  const written = await loadScenario(paths.input);
  const command = scenarioAgentCommand(written, paths.input, opts);
  const install = installDir(command);
  const rootsOpts: RootsOptions = {
    seedDir: paths.workspace,
    ...(install ? { install } : {}),
    ...(opts.mode === 'record' ? {} : { replaying: paths.session }),
  };
  if (written.flags.workspaceParent) rootsOpts.workspaceParent = written.flags.workspaceParent;
  const roots = await createTestRoots(paths.name, rootsOpts);
  opts.dirs.track(roots);
  // Paths the scenario writes as {{cwd}}... become this run's directories before anything is sent.
  const scenario = expandScenarioRoots(written, rootMap(roots));
  const envInput: AgentEnvInput = {
    mode: opts.mode,
    scenario: paths.name,
    persistRoot: roots.persistRoot,
    spillRoot: roots.spillRoot,
    home: roots.home,
    tmp: roots.tmp,
    roots: agentRoots(roots),
  };
  if (opts.mode !== 'record') {
    if (!existsSync(paths.session)) {
      throw new Error(`${paths.session}: missing; record the scenario first: ${recordCommand(paths.name)}`);
    }
    envInput.fixture = paths.session;
    envInput.sidecars = paths.sidecars;
  }
  if (scenario.flags.overridden) envInput.override = paths.override;
  const agentConfigFile = scenario.agentConfig
    ? await writeAgentConfig(roots, scenario.agentConfig)
    : undefined;
  if (agentConfigFile) envInput.agentConfig = agentConfigFile;
  if (opts.baseUrl) envInput.baseUrl = opts.baseUrl;
  if (opts.apiKey) envInput.apiKey = opts.apiKey;
  const driverOpts = {
    command,
    env: agentEnv(envInput),
    processCwd: roots.cwd,
    sessionCwd: roots.cwd,
    fsRoot: roots.root,
    processRoot: roots.root,
    scenario,
    name: paths.name,
    ...(opts.step ? { step: opts.step } : {}),
  };
  const result = await driveScenario(driverOpts).catch(async (e: unknown) => {
    // A failed run's report carries what the agent persisted before it failed and what it left running.
    if (e instanceof DriverError) {
      // The agent names the file it was given; say which input.json field that file is.
      if (agentConfigFile && e.message.includes(agentConfigFile))
        e.message += `\n(${agentConfigFile} is "agentConfig" of ${paths.input})`;
      e.rawLog = await persistedLogText(roots.persistRoot);
      const orphans = await reapOrphans(roots.root);
      if (orphans.length > 0) e.message += `\n${orphansMessage(orphans)}`;
    }
    throw e;
  });
  const orphans = await reapOrphans(roots.root);
  if (orphans.length > 0) result.problems.push(`${paths.name}: ${orphansMessage(orphans)}`);
  const harvested = await harvestLog(roots.persistRoot);
  const logProblem = harvested && (await persistedLogProblem(harvested, result.exits));
  if (logProblem) result.problems.push(`${paths.name}: ${logProblem}`);
  const { sessionId } = result;
  // An agent that persists no log (another team's agent) still gets its session compared: the
  // harness writes the header-only log it observed (docs/decisions/0004).
  const observed =
    !harvested && sessionId !== undefined
      ? observedHeaderOnlyLog(
          { sessionId, ...(result.agentInfo ? { agentInfo: result.agentInfo } : {}) },
          roots,
        )
      : undefined;
  return {
    scenario,
    roots,
    result,
    rawLog: harvested && !harvested.file.endsWith('.gz') ? await readFile(harvested.file, 'utf8') : '',
    records: harvested?.records ?? [],
    projected: observed ?? projectHarvested(harvested, roots),
    logSource: harvested ? 'agent' : observed ? 'harness' : 'none',
    stdoutText: stdoutSnapshotText(result.stdout, roots, scenarioRules(written, opts.rules)),
    workspaceText: await captureWorkspace({ roots, seedDir: paths.workspace, stdout: result.stdout }),
  };
}

/** Writes a scenario's `agentConfig` into the test's root; its path is the agent's ACP_SNAPSHOT_AGENT_CONFIG. */
async function writeAgentConfig(roots: TestRoots, config: Record<string, unknown>): Promise<string> {
  const file = join(roots.root, 'agent-config.json');
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}
