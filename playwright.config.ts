import { join, resolve } from 'node:path';
import {
  type AcpOptions,
  type AgentProfile,
  type SuiteOptions,
  scenarioProjects,
} from '@acp-snapshot/playwright';
import { defineConfig } from '@playwright/test';
import { profileCommands } from './playwright/src/profile.js';
import { fixturesDir, REPO_ROOT } from './playwright/src/scenario/corpus.js';
import { SDK_EXAMPLE_AGENT } from './playwright/src/testing/sdk-example.js';
import type { SnapshotOptions } from './playwright/src/testing/suite-test.js';

const CI = !!process.env.CI;

/**
 * Our agent's built copy: the repository's, or ACP_SNAPSHOT_AGENT_DIST (a copy whose `../config.json` differs:
 * the suite bench's red run changes a word of its system prompt).
 */
const agentDist = process.env.ACP_SNAPSHOT_AGENT_DIST
  ? resolve(process.env.ACP_SNAPSHOT_AGENT_DIST)
  : join(REPO_ROOT, 'agent/dist');

/** The agent under test, by command line only (the harness never imports agent/ code). */
const agent = (overlay: string) => [
  process.execPath,
  join(agentDist, 'main.js'),
  '--overlay',
  join(REPO_ROOT, 'agent/overlays', overlay),
];

/**
 * Other agents a scenario may run with `"agent": NAME` in its input.json, by profile; one command serves
 * every mode. The SDK example calls no model and persists no log.
 */
const agents: Record<string, AgentProfile> = {
  'sdk-example': { command: [process.execPath, SDK_EXAMPLE_AGENT] },
};
const agentCommands = profileCommands(agents);

/**
 * Where a run writes its results and reports: the repository by default, elsewhere with
 * ACP_SNAPSHOT_RESULTS (so a test can run the suite's own commands without touching its outer run's reports).
 */
const results = process.env.ACP_SNAPSHOT_RESULTS ? resolve(process.env.ACP_SNAPSHOT_RESULTS) : '.';

/**
 * Projects:
 * - guards, replay: the default run (`npx playwright test`): fixture-tree checks + keyless replay of every scenario.
 * - unit: package unit/property tests and agent process tests (run by `npm test`).
 * - record, refresh: rewrite fixtures; only when named with --project.
 */
export default defineConfig<SnapshotOptions & AcpOptions & SuiteOptions>({
  outputDir: join(results, 'test-results'),
  retries: 0,
  workers: 2,
  forbidOnly: CI,
  fullyParallel: true,
  globalSetup: './e2e/global-setup.ts',
  reporter: [
    ['list'],
    ['html', { open: 'never', outputFolder: join(results, 'playwright-report') }],
    ['json', { outputFile: join(results, 'test-results/report.json') }],
    // One block per shared cause at the end of a red run, with the command that accepts it.
    ['./playwright/src/report/summary-reporter.ts'],
    ...(CI ? ([['blob', { outputDir: join(results, 'blob-report') }]] as const) : []),
  ],
  use: { trace: 'retain-on-failure', agentCommands },
  projects: [
    // replay, guards (the default run), record and refresh, over e2e/scenarios.spec.ts (scenarioSuite).
    // replay comes first, so `npx playwright test --ui` opens on it (UI mode selects the first project).
    ...scenarioProjects({
      testDir: './e2e',
      fixtures: fixturesDir(),
      replay: { command: agent('replay.json') },
      record: { command: agent('record.json') },
      agents,
      teardown: 'prune-sidecars',
    }),
    // The longest tests first: Playwright hands out tests in the order of this list (then file, then test), so
    // the examples (each minutes long) and the record-emulator proofs start while the short tests fill the other
    // worker, instead of running last with one worker idle at the end.
    {
      // The example projects (examples/*): real agents from npm, installed from their own lockfiles, each
      // running its own suite keylessly three times over; and `acp-snapshot init` from an empty directory (init.spec.ts).
      name: 'examples',
      default: false,
      testDir: './e2e',
      testMatch: ['examples.spec.ts', 'init.spec.ts', 'examples-report.spec.ts'],
      timeout: 600_000,
    },
    {
      // npm test's proofs: record round trip, keyless replay, drift error (all against the local emulator),
      // and the HTML report of a stdout mismatch in real Chromium.
      name: 'record-emulator',
      default: false,
      testDir: './e2e',
      testMatch: [
        'proofs.spec.ts',
        'commands.spec.ts',
        'report.spec.ts',
        'package.spec.ts',
        'http-model.spec.ts',
        'model-faults.spec.ts',
        'record-modes.spec.ts',
        'shard.spec.ts',
        'portable-recording.spec.ts',
      ],
      timeout: 300_000,
      use: { agentCommand: agent('record.json'), replayCommand: agent('replay.json') },
    },
    // ACP v1 conformance checks (e2e/conformance), one test per check against the SDK example and our agent.
    {
      name: 'conformance',
      default: false,
      testDir: './e2e/conformance',
      testMatch: '**/*.spec.ts',
      timeout: 120_000,
    },
    {
      name: 'unit',
      default: false,
      testDir: '.',
      testMatch: [
        '{core,session-log,llm-replay,agent,conformance,playwright,emulator,model-http}/src/**/*.test.ts',
        'agent/test/**/*.spec.ts',
        'scripts/**/*.test.ts',
        'e2e/**/*.test.ts',
      ],
      testIgnore: ['**/node_modules/**'],
    },
    {
      // The failure catalog (core/src/testing/failure-catalog.ts) through the full harness: replayed by the replay agent
      // (harness.spec.ts), and recorded by the record-overlay agent against the emulator (harness-record.spec.ts).
      name: 'failures',
      default: false,
      testDir: './e2e/failures',
      testMatch: ['harness.spec.ts', 'harness-record.spec.ts'],
      timeout: 30_000,
      use: { agentCommand: agent('replay.json') },
    },
    // Runs after record or refresh: sidecars no fixture references any more are deleted.
    { name: 'prune-sidecars', default: false, testDir: './e2e', testMatch: 'sidecars.teardown.ts' },
  ],
});
