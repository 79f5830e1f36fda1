/// <reference lib="dom" />
/**
 * What a reviewer sees of a real agent: codex-acp (its example project, installed from npm) replayed with one
 * word of a committed answer changed. In Debian's Chromium, the failing test's conversation view shows the
 * prompt and, on the first screen, the word marked on both sides; the passing test's shows the prompt, the
 * permission and what was answered, the tool call and the stop reason. Run by `npm test` (project examples).
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@acp-snapshot/playwright/testing';
import { chromium, expect, test } from '@playwright/test';
import { execa } from 'execa';
import { attachmentOf, CHROMIUM, CHROMIUM_ARGS, VIEWPORT } from './report-view.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'codex-acp');
const FAILING = 'a plain answer';
const PASSING = 'a tool call with a permission request';

// biome-ignore lint/correctness/noEmptyPattern: Playwright needs the fixtures argument destructured; this test uses none.
test('codex-acp in the report: the conversation view of a passing and a failing test, in Chromium', async ({}, testInfo) => {
  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing; install it: apt-get install -y chromium`);
  expect(
    existsSync(join(EXAMPLE, 'node_modules', '.bin', 'codex-acp')),
    `${EXAMPLE}/node_modules is missing: install the example first: node scripts/examples.mjs examples/codex-acp`,
  ).toBe(true);
  const root = await mkdtemp(join(tmpdir(), 'acp-example-report-'));
  const project = join(root, 'codex-acp');
  try {
    await test.step('a copy of the example, one word of its plain answer changed', async () => {
      for (const f of ['package.json', 'playwright.config.ts', 'tsconfig.json', 'tests'])
        await cp(join(EXAMPLE, f), join(project, f), { recursive: true });
      await symlink(join(EXAMPLE, 'node_modules'), join(project, 'node_modules'));
      const stdout = join(project, 'tests/__acp__/codex.spec.ts/codex/a-plain-answer/stdout.jsonl');
      const committed = await readFile(stdout, 'utf8');
      expect(committed).toContain('"text":"Paris"');
      await writeFile(stdout, committed.replace('"text":"Paris"', '"text":"Lyon"'));
    });
    const report = join(root, 'report.json');
    await test.step('replayed keylessly: the changed test fails, the other passes', async () => {
      const run = await execa(
        'npx',
        ['playwright', 'test', '--project=codex', '-g', `${FAILING}|${PASSING}`, '--reporter=list,json'],
        {
          cwd: project,
          all: true,
          reject: false,
          env: {
            CI: '1',
            FORCE_COLOR: '0',
            PLAYWRIGHT_JSON_OUTPUT_NAME: report,
            MODEL_UPSTREAM_URL: '',
            OPENAI_API_KEY: '',
          },
        },
      );
      expect(run.exitCode, run.all).toBe(1);
      expect(run.all).toMatch(new RegExp(`✓ .* ${PASSING}`));
      expect(run.all).toMatch(new RegExp(`✘ .* ${FAILING}`));
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: VIEWPORT });
      await page.setContent(await attachmentOf(report, FAILING, 'conversation.html'));
      const failing = testInfo.outputPath('failing-conversation.png');
      await page.screenshot({ path: failing });
      await testInfo.attach('failing conversation (codex-acp)', { path: failing, contentType: 'image/png' });
      await expect(page.locator('.user').first()).toContainText('What is the capital of France?');
      // codex streams the cwd in pieces; the snapshot holds each piece's slice, the view the whole root.
      await expect(page.getByText("I'm answering from {{cwd}}").first()).toBeVisible();
      for (const [mark, word] of [
        ['del', 'Lyon'],
        ['ins', 'Paris'],
      ] as const)
        await expect(page.locator(`tr.changed ${mark}`, { hasText: word }).first()).toBeInViewport({
          ratio: 1,
        });

      await page.setContent(await attachmentOf(report, PASSING, 'conversation.html'));
      const passing = testInfo.outputPath('passing-conversation.png');
      await page.screenshot({ path: passing, fullPage: true });
      await testInfo.attach('passing conversation (codex-acp)', { path: passing, contentType: 'image/png' });
      await expect(page.locator('.user').first()).toContainText('Create notes.txt with my shopping list');
      await expect(page.locator('.permission').first()).toContainText('answered:');
      await expect(page.locator('.tool').first()).toBeVisible();
      await expect(page.locator('.response').last()).toContainText('stop: end_turn');
      await expect(page.locator('tr.changed')).toHaveCount(0);
    } finally {
      await browser.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
