/**
 * A scenario test is located at its input.json, as the list reporter, `--list`, the HTML report and editors
 * show it: this repository's own suite, listed by Playwright itself.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { REPO_ROOT } from '../scenario/corpus.js';
import { childRunnerEnv } from '../testing/runner-env.js';

test("each scenario test's location is line 1 of its input.json, not the suite's source", async () => {
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules/@playwright/test/cli.js'),
        'test',
        '--project=replay',
        '--list',
        '--reporter=json',
        '-g',
        'session-load',
      ],
      {
        cwd: REPO_ROOT,
        env: { ...childRunnerEnv(), ACP_SNAPSHOT_RESULTS: join(REPO_ROOT, '.tmp/test-location') },
      },
      (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
  type Spec = { title: string; file: string; line: number; column: number };
  type Suite = { specs?: Spec[]; suites?: Suite[] };
  const specs: Spec[] = [];
  const walk = (s: Suite) => {
    specs.push(...(s.specs ?? []));
    for (const c of s.suites ?? []) walk(c);
  };
  for (const s of (JSON.parse(out) as { suites: Suite[] }).suites) walk(s);
  const spec = specs.find((s) => s.title === 'session-load');
  expect(spec).toMatchObject({ file: 'fixtures/scenarios/session-load/input.json', line: 1, column: 1 });
});
