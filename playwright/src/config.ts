/**
 * `defineAcpConfig`: a Playwright config for ACP agent tests, one project per agent profile, with the
 * settings snapshot tests need (no retries: a flaky snapshot is a bug; traces kept on failure; snapshot
 * files beside the spec, per project). A live-model project per profile is added only when asked for and
 * never runs by default (`--project=NAME:live`; it needs the key in the environment).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type PlaywrightTestConfig } from '@playwright/test';
import type { AcpOptions, ModelSource } from './fixtures.js';
import type { HttpModelSource, RecordMode } from './model/http-model.js';
import { readOldSpelling, warnOldSpellingOnce } from './old-rule-spelling.js';
import { type AgentProfile, checkProfileRules, checkRules } from './profile.js';
import { GUARDS_TAG, type SuiteMode, type SuiteOptions } from './suite/suite-test.js';

/** An ACP version a project runs on (the profile's `protocolVersion` choices). */
type ProtocolChoice = NonNullable<AgentProfile['protocolVersion']>;

export interface AcpConfigOptions {
  /** The agents to test, by project name. */
  agents: Record<string, AgentProfile>;
  /** Where the specs are (default `./tests`). */
  testDir?: string;
  /** Where each agent's answers come from in the default projects (default: no model). */
  model?: ModelSource;
  /** Adds `NAME:live` projects (not run by default) whose agents talk to a real model. */
  live?: { baseUrlEnv?: string; apiKeyEnv?: string };
  /**
   * With `model: { kind: 'http' }`: adds `NAME:record` projects (not run by default, key-gated by the
   * upstream's variables) that run the same tests against the real model and write what NAME replays:
   * each test's exchange log and its snapshots, in NAME's snapshot directory. `mode` is their
   * {@link RecordMode}: `all` (default) or `missing`; ACP_SNAPSHOT_RECORD_MODE overrides it for one run.
   */
  record?: { upstream: NonNullable<HttpModelSource['upstream']>; mode?: RecordMode };
  /**
   * The ACP versions each agent's tests run on, one project per version: the first keeps the agent's name,
   * each other adds `-v2` (or `-highest`), with its own `:record` and `:live` twins and its own snapshots
   * (`protocols: [1, 2]` makes `NAME` on v1 and `NAME-v2` on v2). A test reads its project's version from the
   * `protocolVersion` fixture option. Default: one project per agent, on the profile's version (else 1).
   */
  protocols?: ProtocolChoice[];
  /** A directory copied into every test's cwd. */
  workspaceSeed?: string;
  /** The run's protocol coverage (the `acp-coverage` teardown project; default on), or `false`. */
  coverage?: CoverageOptions | false;
  /** Playwright settings to merge over the defaults (workers, timeout, reporter...). */
  playwright?: PlaywrightTestConfig<AcpOptions>;
}

export interface CoverageOptions {
  /** Fail the coverage test when a declared capability, mode or config option was never exercised (default false). */
  failOnGap?: boolean;
}

/** The name of the teardown project that reports the run's protocol coverage. */
export const COVERAGE_PROJECT = 'acp-coverage';

/**
 * The coverage teardown project: its spec ships beside this module (in the package's dist, or in the
 * source tree when run from source), so a user's testDir needs nothing of it.
 */
export function coverageProject(opts: CoverageOptions = {}) {
  return {
    name: COVERAGE_PROJECT,
    testDir: join(dirname(fileURLToPath(import.meta.url)), 'coverage'),
    testMatch: /acp-coverage\.spec\.[jt]s$/,
    // A config's grep (the tests it selects) is no filter for the run's report on them.
    grep: /.*/,
    metadata: { failOnGap: opts.failOnGap ?? false },
  };
}

/** Where each test's snapshots (and, with an HTTP model, its exchange log) live: one directory per test and project. */
const SNAPSHOT_PATH_TEMPLATE = '{testDir}/__acp__/{testFilePath}/{projectName}/{arg}{ext}';

export function defineAcpConfig(written: AcpConfigOptions): PlaywrightTestConfig<AcpOptions> {
  if (!written.agents || Object.keys(written.agents).length === 0)
    throw new Error('defineAcpConfig: name at least one agent in `agents`');
  // The 0.x series still reads the earlier rule spelling, warning once per run.
  const { opts, found } = readOldSpelling(written);
  warnOldSpellingOnce(found);
  const agentEntries = Object.entries(opts.agents);
  if (agentEntries.length === 0) throw new Error('defineAcpConfig: name at least one agent in `agents`');
  for (const [name, profile] of agentEntries) {
    if (!Array.isArray(profile.command) || profile.command.length === 0)
      throw new Error(
        `defineAcpConfig: agents.${name}.command must be a non-empty array (executable, then arguments)`,
      );
  }
  // Rules are checked as the config loads: a wrong spelling stops the run before any agent starts.
  for (const [name, profile] of agentEntries)
    if (profile.normalize) checkProfileRules(profile.normalize, `defineAcpConfig: agents.${name}.normalize`);
  if (opts.model?.kind === 'http')
    checkRules(opts.model.ids ?? [], 'defineAcpConfig: model.ids', { name: true });
  if (opts.record && opts.model?.kind !== 'http')
    throw new Error(
      "defineAcpConfig: `record` records model calls over HTTP; set model: { kind: 'http' } as well",
    );
  const common = {
    ...(opts.workspaceSeed ? { workspaceSeed: opts.workspaceSeed } : {}),
  };
  // One entry per agent and version: its project name and what its projects use.
  const entries = agentEntries.flatMap(([name, agentProfile]) =>
    protocolProjects(name, agentProfile, opts.protocols),
  );
  const snapshotPathTemplate = opts.playwright?.snapshotPathTemplate ?? SNAPSHOT_PATH_TEMPLATE;
  const coverage = opts.coverage === false ? undefined : coverageProject(opts.coverage);
  const projects: NonNullable<PlaywrightTestConfig<AcpOptions>['projects']> = entries.map(
    ([name, agentProfile, protocol]) => ({
      name,
      ...(coverage ? { teardown: coverage.name } : {}),
      ...protocol,
      use: { agentProfile, model: opts.model ?? { kind: 'none' }, ...common, ...protocol.use },
    }),
  );
  if (coverage) projects.push(coverage);
  if (opts.live) {
    for (const [name, agentProfile, protocol] of entries)
      projects.push({
        name: `${name}:live`,
        default: false,
        ...protocol,
        use: { agentProfile, model: { kind: 'live', ...opts.live }, ...common, ...protocol.use },
      });
  }
  if (opts.record && opts.model?.kind === 'http') {
    const model: HttpModelSource = {
      ...opts.model,
      record: opts.record.mode ?? 'all',
      upstream: opts.record.upstream,
    };
    for (const [name, agentProfile, protocol] of entries)
      projects.push({
        name: `${name}:record`,
        default: false,
        // What it records is what NAME replays: the same directory, not one of its own.
        snapshotPathTemplate: snapshotPathTemplate.replaceAll('{projectName}', name),
        timeout: 300_000,
        ...protocol,
        use: { agentProfile, model, ...common, ...protocol.use },
      });
  }
  return defineConfig<AcpOptions>({
    testDir: opts.testDir ?? './tests',
    retries: 0,
    fullyParallel: true,
    reporter: [['list'], ['html', { open: 'never' }]],
    snapshotPathTemplate,
    ...opts.playwright,
    use: { trace: 'retain-on-failure', ...opts.playwright?.use },
    projects,
  });
}

/**
 * An agent's projects, one per version of `protocols`: the first keeps `name`, the others are `name-v2` or
 * `name-highest`. Each names its version in `use` (the test's `protocolVersion`) and in its metadata (the
 * JSON report's, for the compatibility table).
 */
function protocolProjects(
  name: string,
  agentProfile: AgentProfile,
  protocols: ProtocolChoice[] | undefined,
): [string, AgentProfile, { use: Partial<AcpOptions>; metadata: { protocolVersion: ProtocolChoice } }][] {
  if (!protocols) {
    const version = agentProfile.protocolVersion ?? 1;
    return [[name, agentProfile, { use: {}, metadata: { protocolVersion: version } }]];
  }
  if (protocols.length === 0 || new Set(protocols).size !== protocols.length)
    throw new Error(
      `defineAcpConfig: protocols ${JSON.stringify(protocols)} must name each version once, e.g. protocols: [1, 2]`,
    );
  return protocols.map((v, i) => [
    i === 0 ? name : `${name}-${v === 'highest' ? 'highest' : `v${v}`}`,
    agentProfile,
    { use: { protocolVersion: v }, metadata: { protocolVersion: v } },
  ]);
}

/** Options of {@link scenarioProjects}. */
export interface ScenarioProjectsOptions {
  /** The spec file(s) that call `scenarioSuite()` (Playwright `testMatch`; default `scenarios.spec.ts`). */
  testMatch?: string | string[];
  /** Where those specs are (default: the config's testDir). */
  testDir?: string;
  /** The fixtures directory whose `scenarios/NAME/` hold the snapshots (default `fixtures`). */
  fixtures?: string;
  /** The agent in replay and refresh (its answers come from the recording). */
  replay: AgentProfile;
  /** The agent in record mode (it talks to a live model); default: the replay profile. */
  record?: AgentProfile;
  /** Agents a scenario may name with `"agent": NAME`. */
  agents?: Record<string, AgentProfile>;
  /** Per-test timeout (default 120 s; record 300 s). */
  timeout?: number;
  /** A project to run after record and refresh (e.g. one that prunes unreferenced sidecars). */
  teardown?: string;
  /** The replay run's protocol coverage (the `acp-coverage` teardown project; default on), or `false`. */
  coverage?: CoverageOptions | false;
}

/**
 * The projects of a scenario corpus: `replay` and `guards` (the default run: keyless replay and the
 * fixture-tree rules), `record` and `refresh` (rewrite fixtures; run only when named with --project).
 * Order matters: replay first, so `--ui` opens on it.
 */
export function scenarioProjects(
  opts: ScenarioProjectsOptions,
): NonNullable<PlaywrightTestConfig<AcpOptions & SuiteOptions>['projects']> {
  const fixtures = opts.fixtures ?? 'fixtures';
  const where = {
    testMatch: opts.testMatch ?? 'scenarios.spec.ts',
    ...(opts.testDir ? { testDir: opts.testDir } : {}),
  };
  const agents = opts.agents ?? {};
  const guards = new RegExp(GUARDS_TAG);
  const teardown = opts.teardown ? { teardown: opts.teardown } : {};
  const mode = (acpMode: SuiteMode, agentProfile: AgentProfile) => ({
    ...where,
    grepInvert: guards,
    snapshotPathTemplate: `${fixtures}/scenarios/{arg}{ext}`,
    timeout: opts.timeout ?? (acpMode === 'record' ? 300_000 : 120_000),
    use: { acpMode, agentProfile, agents },
  });
  const coverage = opts.coverage === false ? undefined : coverageProject(opts.coverage);
  return [
    { name: 'replay', ...mode('replay', opts.replay), ...(coverage ? { teardown: coverage.name } : {}) },
    { name: 'guards', ...where, grep: guards, use: { agents } },
    { name: 'record', default: false, ...mode('record', opts.record ?? opts.replay), ...teardown },
    { name: 'refresh', default: false, ...mode('refresh', opts.replay), ...teardown },
    ...(coverage ? [coverage] : []),
  ];
}
