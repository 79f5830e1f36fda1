// The parts of `npm run examples:upgrade` that edit files: the profile's proven versions, the sidecars a
// re-recording leaves behind, and what it reads from an example's config to record it.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { pruneExampleSidecars, recordSetup, withProven } from './examples-upgrade.js';

const EXAMPLES = join(import.meta.dirname, '..', 'examples');

test("a green upgrade adds the version to the profile's proven versions, once, and nothing else", () => {
  const source =
    "  pkg: '@qwen-code/qwen-code',\n  proven: ['0.24.4'],\n  defaultModel: 'qwen3-coder-plus',\n";
  const once = withProven(source, '0.25.0');
  expect(once).toBe(
    "  pkg: '@qwen-code/qwen-code',\n  proven: ['0.24.4', '0.25.0'],\n  defaultModel: 'qwen3-coder-plus',\n",
  );
  expect(withProven(once, '0.25.0')).toBe(once);
  expect(withProven(source, '0.24.4')).toBe(source);
});

test("each example's config names its record project and the variables its recording reads", () => {
  expect(recordSetup(join(EXAMPLES, 'qwen-code'))).toEqual({
    project: 'qwen',
    keyEnv: 'OPENAI_API_KEY',
    upstreamEnv: 'MODEL_UPSTREAM_URL',
  });
  expect(recordSetup(join(EXAMPLES, 'gemini-cli'))).toEqual({
    project: 'gemini',
    keyEnv: 'GEMINI_API_KEY',
    upstreamEnv: 'MODEL_UPSTREAM_URL',
  });
});

test('a sidecar no exchange log references any more is deleted; the referenced ones stay', () => {
  const root = mkdtempSync(join(tmpdir(), 'upgrade-'));
  try {
    const tree = join(root, '__acp__');
    cpSync(join(EXAMPLES, 'gemini-cli/tests/__acp__'), tree, { recursive: true });
    const sidecars = join(tree, 'gemini.spec.ts/gemini/sidecars');
    const kept = readdirSync(sidecars).sort();
    const stale = join(sidecars, `${'ab'.repeat(32)}.json`);
    writeFileSync(stale, '{"text": ["an old system prompt"]}\n');
    expect(pruneExampleSidecars(tree)).toEqual([stale]);
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(sidecars).sort()).toEqual(kept);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
