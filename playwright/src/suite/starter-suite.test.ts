/**
 * The starter suite as a user's spec declares it, listed by Playwright itself: the five titles (less the skipped
 * ones), each located at the spec's line that called the suite (the JSON report's `file` is what the examples'
 * compatibility table reads), and the seeded tool test alone in an anonymous describe, as the examples had it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { REPO_ROOT } from '../scenario/corpus.js';
import { childRunnerEnv } from '../testing/runner-env.js';

type Spec = { title: string; file: string; line: number; column: number };
type Suite = { title: string; specs?: Spec[]; suites?: Suite[] };

test('starterSuite() declares its tests at the calling line of the spec; skip leaves one out; a seed nests the tool test', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'starter-suite-'));
  try {
    await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
    await writeFile(join(dir, 'playwright.config.ts'), 'export default { testDir: "." };\n');
    await writeFile(
      join(dir, 'agent.spec.ts'),
      `import { starterSuite } from ${JSON.stringify(join(import.meta.dirname, 'starter-suite.ts'))};\n\n` +
        "  starterSuite({ skip: ['a cancelled turn'], toolSeed: 'tests/seed' });\n",
    );
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [join(REPO_ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '--list', '--reporter=json'],
        { cwd: dir, env: childRunnerEnv() },
        (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const found: Array<Spec & { path: string[] }> = [];
    const walk = (s: Suite, path: string[]) => {
      for (const spec of s.specs ?? []) found.push({ ...spec, path });
      for (const c of s.suites ?? []) walk(c, [...path, c.title]);
    };
    for (const s of (JSON.parse(out) as { suites: Suite[] }).suites) walk(s, []);
    expect(
      found.map(({ title, file, line, column, path }) => ({ title, file, line, column, depth: path.length })),
    ).toEqual([
      {
        title: 'no model: initialize and a new session',
        file: 'agent.spec.ts',
        line: 3,
        column: 3,
        depth: 0,
      },
      { title: 'a plain answer', file: 'agent.spec.ts', line: 3, column: 3, depth: 0 },
      { title: 'a multi-turn conversation', file: 'agent.spec.ts', line: 3, column: 3, depth: 0 },
      { title: 'a tool call with a permission request', file: 'agent.spec.ts', line: 3, column: 3, depth: 1 },
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
