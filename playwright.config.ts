import { join, resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import type { SnapshotOptions } from './e2e/fixtures.js';
import { fixturesDir, NAMED_AGENTS, REPO_ROOT } from './e2e/scenarios.js';

const CI = !!process.env.CI;

/** The agent under test, by command line only (the harness never imports agent/ code). */
const agent = (overlay: string) => [
  process.execPath,
  join(REPO_ROOT, 'agent/dist/main.js'),
  '--overlay',
  join(REPO_ROOT, 'agent/overlays', overlay),
];

/** Scenarios naming no agent run the project's `agentCommand` (our agent with the mode's overlay). */
const agents = NAMED_AGENTS;

/** stdout.expected.jsonl of a scenario is the snapshot `toMatchSnapshot([NAME, 'stdout.expected.jsonl'])`. */
const stdoutSnapshots = `${fixturesDir()}/scenarios/{arg}{ext}`;

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
export default defineConfig<SnapshotOptions>({
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
    ['./e2e/summary-reporter.ts'],
    ...(CI ? ([['blob', { outputDir: join(results, 'blob-report') }]] as const) : []),
  ],
  use: { trace: 'retain-on-failure', agents },
  projects: [
    // First, so `npx playwright test --ui` opens on it (UI mode selects the first project).
    {
      name: 'replay',
      testDir: './e2e',
      testMatch: 'replay.spec.ts',
      snapshotPathTemplate: stdoutSnapshots,
      timeout: 120_000,
      use: { agentCommand: agent('replay.json') },
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
        '{session-log,replay-plugin,agent,harness,model-http}/src/**/*.test.ts',
        'agent/test/**/*.spec.ts',
        'scripts/**/*.test.ts',
        'e2e/**/*.test.ts',
      ],
      testIgnore: ['**/node_modules/**'],
    },
    { name: 'guards', testDir: './e2e', testMatch: 'guards.spec.ts' },
    {
      // The failure catalog (e2e/failures/catalog.ts) through the full harness: replayed by the replay agent
      // (harness.spec.ts), and recorded by the record-overlay agent against the emulator (harness-record.spec.ts).
      name: 'failures',
      default: false,
      testDir: './e2e/failures',
      testMatch: ['harness.spec.ts', 'harness-record.spec.ts'],
      timeout: 30_000,
      use: { agentCommand: agent('replay.json') },
    },
    {
      name: 'record',
      default: false,
      testDir: './e2e',
      testMatch: 'record.spec.ts',
      teardown: 'prune-sidecars',
      timeout: 300_000,
      use: { agentCommand: agent('record.json') },
    },
    {
      // npm test's proofs: record round trip, keyless replay, drift error (all against the local emulator),
      // and the HTML report of a stdout mismatch in real Chromium.
      name: 'record-emulator',
      default: false,
      testDir: './e2e',
      testMatch: ['proofs.spec.ts', 'commands.spec.ts', 'report.spec.ts', 'package.spec.ts'],
      timeout: 300_000,
      use: { agentCommand: agent('record.json'), replayCommand: agent('replay.json') },
    },
    {
      name: 'refresh',
      default: false,
      testDir: './e2e',
      testMatch: 'refresh.spec.ts',
      teardown: 'prune-sidecars',
      timeout: 120_000,
      use: { agentCommand: agent('replay.json') },
    },
    // Runs after record or refresh: sidecars no fixture references any more are deleted.
    { name: 'prune-sidecars', default: false, testDir: './e2e', testMatch: 'sidecars.teardown.ts' },
  ],
});
