import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOURCES = ['session-log/src', 'llm-replay/src', 'agent/src', 'scripts/build.mjs'];
const BUNDLES = [
  'session-log/dist/index.js',
  'llm-replay/dist/index.js',
  'agent/dist/main.js',
  'agent/dist/plugins/openai-compatible.js',
];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const e of readdirSync(path, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

/**
 * Rebuilds the agent and plugin bundles so every run tests the current source (esbuild: well under a
 * second), but only when a source is newer than a bundle: rewriting a bundle that another test run's
 * agent processes are loading at that moment would crash them.
 */
export default function globalSetup(): void {
  const oldestBundle = Math.min(...BUNDLES.map((b) => (existsSync(b) ? statSync(b).mtimeMs : 0)));
  const newestSource = Math.max(...SOURCES.map(newestMtime));
  if (oldestBundle > 0 && newestSource <= oldestBundle) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, ACP_SNAPSHOT_BUILD_QUIET: '1' },
  });
}
