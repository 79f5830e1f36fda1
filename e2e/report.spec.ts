/// <reference lib="dom" />
/**
 * What a reviewer sees: a scenario whose stdout changed fails, and its page in Playwright's HTML report,
 * opened in real Chromium, shows the changed words on the first screen without scrolling sideways
 * (stdout lines are ~300-character JSON; a diff of whole lines hides the change past the right edge).
 * Run by `npm test` (project record-emulator); Debian's chromium is installed by `.ci/run`.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  discoverScenarios,
  expect,
  fixturesDir,
  scenarioPaths,
  test,
} from '@acp-snapshot/playwright/testing';
import { chromium } from '@playwright/test';
import { attachmentOf, CHROMIUM, CHROMIUM_ARGS, VIEWPORT } from './report-view.js';
import { scratchProject } from './scratch-project.js';

const NAME = 'hello';
interface WordBox {
  found: boolean;
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** The narrowest box of the scrolling ancestors the word sits in (the page's viewport at most). */
  clip: { left: number; right: number; top: number; bottom: number };
}

// biome-ignore lint/correctness/noEmptyPattern: Playwright needs the fixtures argument destructured; this test uses none.
test('a reviewer sees the changed words of a failing stdout diff on the first screen of the HTML report', async ({}, testInfo) => {
  test.skip(!discoverScenarios(fixturesDir()).includes(NAME), `scenario ${NAME} not committed yet`);
  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing; install it: apt-get install -y chromium`);
  await using sh = await scratchProject(NAME);
  const paths = scenarioPaths(sh.fixtures, NAME);
  const committed = await readFile(paths.stdout, 'utf8');
  await writeFile(paths.stdout, committed.replace('"text":" Nice"', '"text":" Glad"'));
  const red = await sh.run(`npx playwright test -g ${NAME}`);
  expect(red.exitCode, red.output).toBe(1);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(`file://${join(sh.results, 'playwright-report', 'index.html')}`);
    await page.getByRole('link', { name: NAME, exact: true }).click();
    const error = page.getByText('stdout differs from stdout.expected.jsonl').first();
    await expect(error).toBeVisible();
    const screenshot = await page.screenshot();
    await testInfo.attach('report page', { body: screenshot, contentType: 'image/png' });
    // The live word, first where the error shows it: a text range, not its element, whose box may be a whole
    // line wider than the screen. (The annotations above the error show the cause too; they do not count.)
    const box: WordBox = await error.evaluate((start, word) => {
      let root: Element = start;
      while (root.parentElement && !root.textContent?.includes(word)) root = root.parentElement;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n as Text;
        const at = text.data.indexOf(word);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(text, at);
        range.setEnd(text, at + word.length);
        const r = range.getBoundingClientRect();
        const clip = { left: 0, right: window.innerWidth, top: 0, bottom: window.innerHeight };
        for (let el = text.parentElement; el; el = el.parentElement) {
          const style = getComputedStyle(el);
          if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
          const c = el.getBoundingClientRect();
          clip.left = Math.max(clip.left, c.left);
          clip.right = Math.min(clip.right, c.right);
          clip.top = Math.max(clip.top, c.top);
          clip.bottom = Math.min(clip.bottom, c.bottom);
        }
        return { found: true, left: r.left, right: r.right, top: r.top, bottom: r.bottom, clip };
      }
      const none = { left: 0, right: 0, top: 0, bottom: 0 };
      return { found: false, ...none, clip: none };
    }, 'Nice');
    expect(box.found, 'the changed word is in the error').toBe(true);
    expect(box.left, 'the changed word starts inside the visible area').toBeGreaterThanOrEqual(box.clip.left);
    expect(
      box.right,
      'the changed word ends inside the visible area (no sideways scrolling)',
    ).toBeLessThanOrEqual(box.clip.right);
    expect(box.bottom, 'the changed word is on the first screen').toBeLessThanOrEqual(box.clip.bottom);
    expect(box.top).toBeGreaterThanOrEqual(box.clip.top);
  } finally {
    await browser.close();
  }
});

// biome-ignore lint/correctness/noEmptyPattern: Playwright needs the fixtures argument destructured; this test uses none.
test('the conversation view of a passing and a failing scenario, in Chromium: the prompt, the answer, the changed word marked on screen', async ({}, testInfo) => {
  test.skip(
    !discoverScenarios(fixturesDir()).includes('edit-allowed'),
    'scenario edit-allowed not committed yet',
  );
  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing; install it: apt-get install -y chromium`);
  await using sh = await scratchProject([NAME, 'edit-allowed']);
  const paths = scenarioPaths(sh.fixtures, NAME);
  await writeFile(
    paths.stdout,
    (await readFile(paths.stdout, 'utf8')).replace('"text":" Nice"', '"text":" Glad"'),
  );
  const red = await sh.run('npx playwright test --project=replay');
  expect(red.exitCode, red.output).toBe(1);
  expect(red.output, 'the passing scenario passed').toMatch(/✓ .* edit-allowed/);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    // The failing one: expected and actual side by side, the word marked on each side, on the first screen.
    await page.setContent(
      await attachmentOf(join(sh.results, 'test-results', 'report.json'), NAME, 'conversation.html'),
    );
    await testInfo.attach('failing conversation', {
      body: await page.screenshot(),
      contentType: 'image/png',
    });
    await expect(page.getByRole('cell', { name: /^user Say hello/ }).first()).toBeVisible();
    for (const [mark, word] of [
      ['del', 'Glad'],
      ['ins', 'Nice'],
    ] as const) {
      const marked = page.locator(`tr.changed ${mark}`, { hasText: word });
      await expect(marked).toBeInViewport({ ratio: 1 });
    }
    // The passing one: the prompt, the edit behind its permission and its diff, the stop reason.
    await page.setContent(
      await attachmentOf(
        join(sh.results, 'test-results', 'report.json'),
        'edit-allowed',
        'conversation.html',
      ),
    );
    await testInfo.attach('passing conversation', {
      body: await page.screenshot({ fullPage: true }),
      contentType: 'image/png',
    });
    await expect(page.locator('.user').first()).toContainText('In greeting.py, make the greeting say');
    await expect(page.locator('.permission')).toContainText('answered: Allow');
    await expect(page.locator('.tool', { hasText: '+    return "Hello, ACP"' }).first()).toBeVisible();
    await expect(page.locator('.response')).toContainText('stop: end_turn');
    await expect(page.locator('tr.changed')).toHaveCount(0);
    // The same blocks as text (conversation.txt), one line each: what a terminal and a failure message show.
    const text = await attachmentOf(
      join(sh.results, 'test-results', 'report.json'),
      'edit-allowed',
      'conversation.txt',
    );
    expect(text).toMatch(/^user: In greeting\.py, make the greeting say/m);
    expect(text).toMatch(/^permission asked: .*⏎answered: Allow/m);
    expect(text).toMatch(/^edit · .*\+ {4}return "Hello, ACP"/m);
    expect(text).toMatch(/^stop: end_turn$/m);
  } finally {
    await browser.close();
  }
});
