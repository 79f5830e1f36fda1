import { execFileSync } from 'node:child_process';

/** Rebuilds the agent and plugin bundles so every run tests the current source (esbuild: well under a second). */
export default function globalSetup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, ACP_SNAPSHOT_BUILD_QUIET: '1' },
  });
}
