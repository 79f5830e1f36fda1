/**
 * The record project flags model nondeterminism: re-recording a scenario whose replaced fixture holds
 * another answer to the same request prints the per-call review in the test's output and puts the
 * flagged call in its annotations (the record project run as `npm run record` runs it, in a child
 * process, against a scratch fixtures copy, with the bundled emulator).
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { fixturesDir, REPO_ROOT, scenarioPaths } from '../scenario/corpus.js';
import { childRunnerEnv } from '../testing/runner-env.js';
import { expect, test } from '../testing/suite-test.js';
import { NONDETERMINISM } from './review-format.js';

let scratch: string;
test.beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'acp-record-review-'));
  await cp(join(fixturesDir(), 'sidecars'), join(scratch, 'fixtures', 'sidecars'), { recursive: true });
  await cp(scenarioPaths(fixturesDir(), 'hello').dir, scenarioPaths(join(scratch, 'fixtures'), 'hello').dir, {
    recursive: true,
  });
});
test.afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface JsonReport {
  suites: {
    suites?: JsonReport['suites'];
    specs?: { tests: { annotations: { type: string; description?: string }[] }[] }[];
  }[];
}

function annotations(suites: JsonReport['suites']): { type: string; description?: string }[] {
  return suites.flatMap((s) => [
    ...(s.specs ?? []).flatMap((spec) => spec.tests.flatMap((t) => t.annotations)),
    ...annotations(s.suites ?? []),
  ]);
}

test('a re-recording that answers the same request differently is flagged in the output and the annotations', async () => {
  test.setTimeout(120_000);
  const paths = scenarioPaths(join(scratch, 'fixtures'), 'hello');
  const committed = await readFile(paths.session, 'utf8');
  // The replaced fixture holds another answer than the emulator script gives: as a nondeterministic model leaves it.
  expect(committed).toContain('"Hello!"," Nice"');
  await writeFile(paths.session, committed.replace('"Hello!"," Nice"', '"Howdy!"," Nice"'));

  const env = childRunnerEnv();
  Object.assign(env, {
    ACP_SNAPSHOT_FIXTURES: join(scratch, 'fixtures'),
    ACP_SNAPSHOT_BASE_URL: 'emulator',
    ACP_SNAPSHOT_ONLY: 'hello',
    PLAYWRIGHT_JSON_OUTPUT_FILE: join(scratch, 'report.json'),
    FORCE_COLOR: '0',
  });
  const run = await execa(
    process.execPath,
    [
      join(REPO_ROOT, 'node_modules/@playwright/test/cli.js'),
      'test',
      '--project=record',
      '--reporter=list,json',
      `--output=${join(scratch, 'test-results')}`,
    ],
    { cwd: REPO_ROOT, env, extendEnv: false, reject: false, all: true, timeout: 90_000 },
  );
  expect(run.exitCode, run.all).toBe(0);
  expect(await readFile(paths.session, 'utf8'), 'the recording replaced the fixture').toBe(committed);
  const flagged = 'FLAGGED hello call 1 (turn 1 step 1): the response changed while the request did not:';
  expect(run.all).toContain('the re-recording of hello, call by call against the fixture it replaced:');
  expect(run.all).toContain('hello: 1 model call(s): 1 flagged, 1 response(s) changed');
  expect(run.all).toContain(`  ${flagged}\n      text: "[-Howdy-]{+Hello+}! Nice to meet you."\n`);
  expect(run.all).toContain(NONDETERMINISM);
  expect(run.all).toContain('npm run record -- hello');
  const report = JSON.parse(await readFile(join(scratch, 'report.json'), 'utf8')) as JsonReport;
  expect(annotations(report.suites)).toContainEqual({ type: 'nondeterminism', description: flagged });
});
