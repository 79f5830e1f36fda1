/**
 * `defineAcpConfig`: a Playwright config for ACP agent tests, one project per agent profile, with the
 * settings snapshot tests need (no retries: a flaky snapshot is a bug; traces kept on failure; snapshot
 * files beside the spec, per project). A live-model project per profile is added only when asked for and
 * never runs by default (`--project=NAME:live`; it needs the key in the environment).
 */
import { defineConfig, type PlaywrightTestConfig } from '@playwright/test';
import type { AcpOptions, ModelSource } from './fixtures.js';
import type { AgentProfile } from './profile.js';

export interface AcpConfigOptions {
  /** The agents to test, by project name. */
  agents: Record<string, AgentProfile>;
  /** Where the specs are (default `./tests`). */
  testDir?: string;
  /** Where each agent's answers come from in the default projects (default: no model). */
  model?: ModelSource;
  /** Adds `NAME:live` projects (not run by default) whose agents talk to a real model. */
  live?: { baseUrlEnv?: string; apiKeyEnv?: string };
  /** A directory copied into every test's cwd. */
  workspaceSeed?: string;
  /** Playwright settings to merge over the defaults (workers, timeout, reporter...). */
  playwright?: PlaywrightTestConfig<AcpOptions>;
}

export function defineAcpConfig(opts: AcpConfigOptions): PlaywrightTestConfig<AcpOptions> {
  const entries = Object.entries(opts.agents);
  if (entries.length === 0) throw new Error('defineAcpConfig: name at least one agent in `agents`');
  for (const [name, profile] of entries) {
    if (!Array.isArray(profile.command) || profile.command.length === 0)
      throw new Error(
        `defineAcpConfig: agents.${name}.command must be a non-empty array (executable, then arguments)`,
      );
  }
  const common = {
    ...(opts.workspaceSeed ? { workspaceSeed: opts.workspaceSeed } : {}),
  };
  const projects: NonNullable<PlaywrightTestConfig<AcpOptions>['projects']> = entries.map(
    ([name, agentProfile]) => ({
      name,
      use: { agentProfile, model: opts.model ?? { kind: 'none' }, ...common },
    }),
  );
  if (opts.live) {
    for (const [name, agentProfile] of entries)
      projects.push({
        name: `${name}:live`,
        default: false,
        use: { agentProfile, model: { kind: 'live', ...opts.live }, ...common },
      });
  }
  return defineConfig<AcpOptions>({
    testDir: opts.testDir ?? './tests',
    retries: 0,
    fullyParallel: true,
    reporter: [['list'], ['html', { open: 'never' }]],
    snapshotPathTemplate: '{testDir}/__acp__/{testFilePath}/{projectName}/{arg}{ext}',
    ...opts.playwright,
    use: { trace: 'retain-on-failure', ...opts.playwright?.use },
    projects,
  });
}
