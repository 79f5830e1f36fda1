/**
 * The example projects (examples/*): real ACP agents from npm, each in a project of its own that consumes
 * the harness package as a user's would. Each is installed from its own lockfile and runs its own suite,
 * replayed keylessly from its committed exchange logs three times over (`--repeat-each=3`): every test
 * passes every time, its drift test included, and no model is reachable.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';
// @ts-expect-error: a plain .mjs script, typed by its use here
import { examples, installExamples } from '../scripts/examples.mjs';

interface JsonReport {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  suites: Array<{
    specs?: Array<{ title: string; tests: Array<{ results: Array<{ status: string }> }> }>;
    suites?: JsonReport['suites'];
  }>;
}

test.describe.configure({ mode: 'parallel' });

for (const dir of examples() as string[]) {
  test(`examples/${basename(dir)}: replayed keylessly three times over, every test green`, async () => {
    await test.step('install it from its lockfile (skipped when installed and current)', () =>
      installExamples(() => {}, dir));
    const out = await mkdtemp(join(tmpdir(), 'acp-example-'));
    try {
      const run = await test.step('npx playwright test --repeat-each=3', () =>
        execa('npx', ['playwright', 'test', '--repeat-each=3', '--reporter=list,json'], {
          cwd: dir,
          all: true,
          reject: false,
          env: {
            CI: '1',
            FORCE_COLOR: '0',
            PLAYWRIGHT_JSON_OUTPUT_NAME: join(out, 'report.json'),
            PLAYWRIGHT_HTML_OUTPUT_DIR: join(out, 'html'),
            // Keyless: no upstream, no key.
            MODEL_UPSTREAM_URL: '',
            OPENAI_API_KEY: '',
            ANTHROPIC_API_KEY: '',
          },
        }));
      await test.info().attach('output.txt', { body: run.all ?? '', contentType: 'text/plain' });
      expect(run.exitCode, run.all).toBe(0);
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as JsonReport;
      expect(report.stats).toMatchObject({ unexpected: 0, flaky: 0, skipped: 0 });
      // What each example must show, each replayed three times and passing every time.
      const runs = specRuns(report.suites);
      for (const title of REQUIRED) {
        const found = [...runs.keys()].find((t) => t.startsWith(title));
        expect(found, `examples/${basename(dir)} has a test titled "${title}..."`).toBeDefined();
        expect(runs.get(found!)).toEqual(['passed', 'passed', 'passed']);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
}

/** The titles (their beginnings) every example's suite has. */
const REQUIRED = [
  'no model',
  'a plain answer',
  'a tool call with a permission request',
  'a multi-turn conversation',
  'a cancelled turn',
  'a changed prompt is refused',
];

/** Each spec's title -> the statuses of its runs, from the JSON report. */
function specRuns(suites: JsonReport['suites'], into = new Map<string, string[]>()): Map<string, string[]> {
  for (const suite of suites) {
    for (const spec of suite.specs ?? [])
      into.set(spec.title, [
        ...(into.get(spec.title) ?? []),
        ...spec.tests.flatMap((t) => t.results.map((r) => r.status)),
      ]);
    specRuns(suite.suites ?? [], into);
  }
  return into;
}
