// The agent profiles committed under targets/ (the conformance project runs them; docs/conformance.md shows
// the command line for each).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadProfile, REPO_ROOT } from '@acp-snapshot/playwright/testing';
import { expect, test } from '@playwright/test';

test('the committed agent profiles under targets/ are valid profiles that route the model to the stand-in', async () => {
  // Our agent's profile, and the built-in profiles of the four agents on npm with the agent installed in its
  // example project (`node scripts/examples.mjs`); without it, loading says so.
  const dir = join(REPO_ROOT, 'e2e', 'conformance', 'targets');
  const files = readdirSync(dir).sort();
  expect(files).toEqual([
    'acp-snapshot-agent.ts',
    'claude-agent-acp.ts',
    'codex-acp.ts',
    'gemini-cli.ts',
    'qwen-code.ts',
  ]);
  for (const f of files) {
    const example = join(REPO_ROOT, 'examples', f.replace(/\.ts$/, ''));
    if (f !== 'acp-snapshot-agent.ts' && !existsSync(join(example, 'node_modules'))) {
      await expect(loadProfile(join(dir, f)), f).rejects.toThrow(/the agent is not installed/);
      continue;
    }
    const profile = await loadProfile(join(dir, f));
    const text = JSON.stringify([profile.env, profile.home]);
    expect(text, f).toContain('{{modelBaseUrl}}');
  }
});
