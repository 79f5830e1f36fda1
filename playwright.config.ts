import { defineConfig } from '@playwright/test';

const CI = !!process.env.CI;

/**
 * Projects:
 * - guards, replay: the default run (`npx playwright test`): fixture-tree checks + keyless replay of every scenario.
 * - unit: package unit/property tests and agent process tests (run by `npm test`).
 * - record, refresh: rewrite fixtures; only when named with --project.
 */
export default defineConfig({
  outputDir: 'test-results',
  retries: 0,
  workers: 2,
  forbidOnly: CI,
  fullyParallel: true,
  globalSetup: './e2e/global-setup.ts',
  reporter: [
    ['list'],
    ['html', { open: 'never', outputFolder: 'playwright-report' }],
    ['json', { outputFile: 'test-results/report.json' }],
    ...(CI ? ([['blob', { outputDir: 'blob-report' }]] as const) : []),
  ],
  use: { trace: 'retain-on-failure' },
  projects: [
    {
      name: 'unit',
      default: false,
      testDir: '.',
      testMatch: ['{session-log,replay-plugin,agent}/src/**/*.test.ts', 'agent/test/**/*.spec.ts', 'scripts/**/*.test.ts', 'e2e/**/*.test.ts'],
      testIgnore: ['**/node_modules/**'],
    },
  ],
});
