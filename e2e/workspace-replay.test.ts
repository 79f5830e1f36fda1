/**
 * The workspace surface and kept directories through the real replay project, run as a user runs it
 * (`npx playwright test --project=replay -g NAME`, in a child process, against a scratch fixtures copy):
 * an edit whose content differs from workspace.expected.json fails naming the file, the line and the
 * fix, and keeps the test's directories; `--update-snapshots` rewrites the file, and that passing run
 * leaves no directory behind.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  childRunnerEnv,
  expect,
  fixturesDir,
  REPO_ROOT,
  scenarioKey,
  scenarioPaths,
  test,
} from '@acp-snapshot/playwright/testing';
import { execa } from 'execa';

const FROM = 'edit-allowed';
/** A name of its own, so its generated roots (`/tmp/acp-snap-<key>-...`) are told apart from any other run's. */
const NAME = 'edit-allowed-workspace-proof';

/** This scenario's generated roots that exist now. */
async function rootsOnDisk(): Promise<string[]> {
  const prefix = `acp-snap-${scenarioKey(NAME)}-`;
  return (await readdir('/tmp')).filter((e) => e.startsWith(prefix)).map((e) => join('/tmp', e));
}

let scratch: string;
test.beforeEach(async () => {
  // Only this test runs NAME: what is left is from an earlier failed run of it (kept for inspection then).
  for (const stale of await rootsOnDisk()) await rm(stale, { recursive: true, force: true });
  scratch = await mkdtemp(join(tmpdir(), 'acp-workspace-proof-'));
  await cp(join(fixturesDir(), 'sidecars'), join(scratch, 'fixtures', 'sidecars'), { recursive: true });
  await cp(scenarioPaths(fixturesDir(), FROM).dir, scenarioPaths(join(scratch, 'fixtures'), NAME).dir, {
    recursive: true,
  });
});
test.afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** `npx playwright test --project=replay -g NAME` on the scratch fixtures, with its own output directory. */
function replay(...args: string[]) {
  const env = childRunnerEnv();
  env.ACP_SNAPSHOT_FIXTURES = join(scratch, 'fixtures');
  // Plain text, as a log file or CI shows it (this runner's workers force colors on).
  env.FORCE_COLOR = '0';
  return execa(
    process.execPath,
    [
      join(REPO_ROOT, 'node_modules/@playwright/test/cli.js'),
      'test',
      '--project=replay',
      '-g',
      NAME,
      '--reporter=list',
      `--output=${join(scratch, 'test-results')}`,
      ...args,
    ],
    { cwd: REPO_ROOT, env, extendEnv: false, reject: false, all: true, timeout: 90_000 },
  );
}

test('an edit that writes other content than workspace.expected.json fails naming the file and line, and keeps its directories', async () => {
  test.setTimeout(180_000);
  const paths = scenarioPaths(join(scratch, 'fixtures'), NAME);
  const committed = await readFile(paths.workspaceExpected, 'utf8');
  const agentWrote = '"    return \\"Hello, ACP\\""';
  expect(committed, 'the agent really edits greeting.py').toContain(agentWrote);
  // The expectation says the edit writes "Hello, ACP!"; the agent writes "Hello, ACP" and reports success.
  await writeFile(paths.workspaceExpected, committed.replace(agentWrote, '"    return \\"Hello, ACP!\\""'));
  expect(await rootsOnDisk()).toEqual([]);

  const failed = await replay();
  expect(failed.exitCode, failed.all).toBe(1);
  const file = `${join(scratch, 'fixtures', 'scenarios', NAME)}/workspace.expected.json`;
  expect(failed.all).toContain(
    `Error: ${NAME}: the workspace the agent left differs from ${file}: greeting.py (changed), line 2: expected "    return \\"Hello, ACP!\\"", got "    return \\"Hello, ACP\\"". If the change is intended, run \`npm run test:snapshot:update -- -g ${NAME}\`.`,
  );
  // Playwright's snapshot diff shows the differing line.
  expect(failed.all).toMatch(/-\s+" {4}return \\"Hello, ACP!\\"",\n\s+\+\s+" {4}return \\"Hello, ACP\\"",/);
  // The other surfaces still pass: only the workspace differs.
  expect(failed.all).not.toContain('stdout.expected.jsonl');
  expect(failed.all).not.toContain('session.jsonl differs');
  const kept = /kept for inspection: (\/tmp\/acp-snap-[0-9a-f]{8}-\w{6})/.exec(failed.all)?.[1];
  expect(kept, failed.all).toBeDefined();
  expect(await rootsOnDisk()).toEqual([kept]);
  expect(await readFile(join(kept!, 'work', 'greeting.py'), 'utf8')).toContain('return "Hello, ACP"');
  expect(existsSync(join(kept!, 'persist')), 'the persisted log is kept too').toBe(true);
  await rm(kept!, { recursive: true, force: true });

  // The command the message names accepts the workspace as it is; that run passes and removes its directories.
  const updated = await replay('--update-snapshots');
  expect(updated.exitCode, updated.all).toBe(0);
  expect(await readFile(paths.workspaceExpected, 'utf8')).toBe(committed);
  expect(updated.all).not.toContain('kept for inspection');
  expect(await rootsOnDisk(), 'a passing test removes its directories').toEqual([]);
});
