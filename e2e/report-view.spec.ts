/**
 * What a reviewer sees of a stdout mismatch in the HTML report, in real Chromium (Debian's `chromium`
 * package): a scratch copy of `hello` with one word of its expected stdout changed is replayed by a
 * nested `playwright test`, its HTML report opened, the failing test clicked, and the changed words
 * must be on screen without scrolling sideways. The screenshot is attached for a human look.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { execa } from 'execa';
import { expect, test } from './fixtures.js';
import { fixturesDir, REPO_ROOT } from './scenarios.js';

const CHROMIUM = '/usr/bin/chromium';
const MARKED = '[-greet-]{+meet+}';
const LINE = `~ agent: Hello! Nice to ${MARKED} you.`;

interface WordsBox {
  left: number;
  right: number;
  /** The right edge of the nearest ancestor that clips or scrolls its overflow: what is shown of it. */
  shownRight: number;
  window: number;
}

/**
 * Where `words` are drawn in the first text of the page that holds `line`, against the box that shows
 * them (the nearest ancestor that clips or scrolls its overflow) and the window; undefined when no
 * text holds them. Page code as a string expression: the harness compiles without DOM types.
 */
const wordsBox = (line: string, words: string) => `((line, words) => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const at = n.textContent.indexOf(words);
    if (at < 0 || !n.textContent.includes(line)) continue;
    const range = document.createRange();
    range.setStart(n, at);
    range.setEnd(n, at + words.length);
    const drawn = range.getBoundingClientRect();
    let clip = n.parentElement;
    while (clip && getComputedStyle(clip).overflowX === 'visible') clip = clip.parentElement;
    const shown = (clip || document.documentElement).getBoundingClientRect();
    return { left: drawn.left, right: drawn.right, shownRight: shown.right, window: window.innerWidth };
  }
  return undefined;
})(${JSON.stringify(line)}, ${JSON.stringify(words)})`;

test('the changed words of a stdout mismatch are visible in the HTML report without scrolling sideways', async () => {
  const testInfo = test.info();
  test.skip(!existsSync(CHROMIUM), `needs Debian's chromium at ${CHROMIUM} (apt-get install chromium)`);
  const dir = await mkdtemp(join(tmpdir(), 'acp-snap-report-'));
  try {
    await cp(join(fixturesDir(), 'sidecars'), join(dir, 'fixtures', 'sidecars'), { recursive: true });
    const scenario = join(dir, 'fixtures', 'scenarios', 'hello');
    await cp(join(fixturesDir(), 'scenarios', 'hello'), scenario, { recursive: true });
    const stdout = join(scenario, 'stdout.expected.jsonl');
    const text = await readFile(stdout, 'utf8');
    expect(text).toContain('" meet"');
    await writeFile(stdout, text.replace('" meet"', '" greet"'));
    // Only the nested run's own variables: the outer worker's would make it think it is a worker.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(TEST_|PW_|PLAYWRIGHT_)/.test(k)),
    );
    const run = await execa(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules/@playwright/test/cli.js'),
        'test',
        '--project=replay',
        '--reporter=html',
        '--output',
        join(dir, 'results'),
      ],
      {
        cwd: REPO_ROOT,
        reject: false,
        env: {
          ...env,
          ACP_SNAPSHOT_FIXTURES: join(dir, 'fixtures'),
          PLAYWRIGHT_HTML_OUTPUT_DIR: join(dir, 'report'),
          PLAYWRIGHT_HTML_OPEN: 'never',
        },
        extendEnv: false,
      },
    );
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1);

    const browser = await chromium.launch({ executablePath: CHROMIUM });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await page.goto(`file://${join(dir, 'report', 'index.html')}`);
      await page.getByText('hello', { exact: true }).first().click();
      const line = page.getByText(LINE);
      await expect(line).toBeVisible();
      await testInfo.attach('report.png', { body: await page.screenshot(), contentType: 'image/png' });
      const box = (await page.evaluate(wordsBox(LINE, MARKED))) as WordsBox | undefined;
      expect(box, `"${MARKED}" is in the transcript line of the error message`).toBeDefined();
      expect(box!.right).toBeGreaterThan(box!.left);
      expect(box!.right, 'the changed words end inside the box that shows them').toBeLessThanOrEqual(
        box!.shownRight,
      );
      expect(box!.right, 'and inside the window').toBeLessThanOrEqual(box!.window);
    } finally {
      await browser.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
