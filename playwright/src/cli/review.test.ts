/**
 * `npm run review` as a user runs it, against a scratch git repository holding a copy of a committed
 * scenario (never this repository's own git state): a re-recorded answer to the same request is
 * flagged and exits 1, `--allow-nondeterminism` keeps it with exit 0, `--base` compares with another
 * commit, and bad input exits 2 saying what to do.
 */
import { cp, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { NONDETERMINISM } from '../modes/review-format.js';
import { fixturesDir, REPO_ROOT, scenarioPaths } from '../scenario/corpus.js';

// Each case runs the real CLI (npm, then tsx) several times: seconds each on a loaded 2-core machine.
test.describe.configure({ timeout: 120_000 });

let scratch: string;
let env: Record<string, string>;
const fixtures = () => join(scratch, 'fixtures');
const hello = () => scenarioPaths(fixtures(), 'hello');

/** git in the scratch repository, with no user or system configuration. */
const git = (...args: string[]) =>
  execa('git', ['-c', 'user.name=review test', '-c', 'user.email=review@test.invalid', ...args], {
    cwd: scratch,
    env,
    extendEnv: false,
  });

/** The real CLI: `npm run review -- ARGS` over the scratch fixtures. */
const review = (...args: string[]) =>
  execa('npm', ['run', '--silent', 'review', '--', ...args], {
    cwd: REPO_ROOT,
    env: { ...env, ACP_SNAPSHOT_FIXTURES: fixtures() },
    extendEnv: false,
    reject: false,
  });

test.beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'acp-review-test-'));
  env = {};
  // A GIT_DIR or GIT_INDEX_FILE of an outer git (a hook running the tests) must not leak in.
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, {
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    // Never find a repository above the scratch directory.
    GIT_CEILING_DIRECTORIES: dirname(scratch),
  });
  await cp(scenarioPaths(fixturesDir(), 'hello').dir, hello().dir, { recursive: true });
});
test.afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function commitAll(message: string) {
  await git('add', '-A');
  await git('commit', '-q', '-m', message);
}

/** A repository whose one commit holds the copied scenario. */
async function committedRepo() {
  await git('init', '-q');
  await commitAll('hello');
}

/** hello's recorded answer, as a re-recording by a model that answered differently would leave it. */
async function answerDifferently() {
  const text = await readFile(hello().session, 'utf8');
  expect(text).toContain('"Hello!"," Nice"');
  await writeFile(hello().session, text.replace('"Hello!"," Nice"', '"Howdy!"," Nice"'));
}

test('a changed answer to the same request is flagged with exit 1; --allow-nondeterminism keeps it with exit 0', async () => {
  await committedRepo();
  const clean = await review();
  expect([clean.exitCode, clean.stdout]).toEqual([0, 'review: no fixture changes against HEAD']);

  await answerDifferently();
  const flagged = await review();
  expect(flagged.exitCode).toBe(1);
  const lines = flagged.stdout.split('\n');
  expect(lines).toContain('hello: 1 model call(s): 1 flagged, 1 response(s) changed');
  expect(lines).toContain(
    '  FLAGGED hello call 1 (turn 1 step 1): the response changed while the request did not:',
  );
  expect(lines).toContain('      text: "[-Hello-]{+Howdy+}! Nice to meet you."');
  expect(lines).toContain(`  ${NONDETERMINISM}`);
  expect(lines).toContain('  1     turn 1 step 1  unchanged  changed  <- FLAGGED');
  expect(lines.at(-1)).toBe('review: exit 1; pass --allow-nondeterminism to keep them knowingly and exit 0.');

  const kept = await review('--allow-nondeterminism');
  expect(kept.exitCode).toBe(0);
  expect(kept.stdout).toContain('FLAGGED hello call 1');
  expect(kept.stdout).toContain('review: kept knowingly (--allow-nondeterminism): exit 0.');
});

test('--base compares with another commit; a named scenario is reviewed even when unchanged', async () => {
  await committedRepo();
  await answerDifferently();
  await commitAll('hello, answered differently');
  expect((await review()).stdout).toBe('review: no fixture changes against HEAD');
  const named = await review('hello');
  expect([named.exitCode, named.stdout.split('\n')[2]]).toEqual([0, 'hello: 1 model call(s): all unchanged']);
  const earlier = await review('--base', 'HEAD~1');
  expect(earlier.exitCode).toBe(1);
  expect(earlier.stdout).toContain('review: 1 scenario(s) against HEAD~1');
  expect(earlier.stdout).toContain('FLAGGED hello call 1');
});

test('a changed request is not flagged, and new calls are listed as added', async () => {
  await committedRepo();
  // Another scenario's log in hello's place: other requests, one more call.
  await cp(scenarioPaths(fixturesDir(), 'multi-turn').session, hello().session);
  const r = await review();
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toMatch(/\n {2}1 +turn 1 step 1 +changed: messages\[0\] +changed\n/);
  expect(r.stdout).toMatch(/\n {2}2 +turn 2 step 1 +\(added\) +text: "We picked lighthouse/);
  expect(r.stdout).toContain('review: nothing flagged');
});

test('bad input exits 2 saying what to do: unknown scenario, not a git repository, unknown revision', async () => {
  const outside = await review();
  expect(outside.exitCode).toBe(2);
  expect(outside.stderr).toContain(`review: ${fixtures()} is not inside a git repository`);
  expect(outside.stderr).toContain('run it in a clone of the project');

  await git('init', '-q');
  const empty = await review();
  expect([empty.exitCode, empty.stderr]).toEqual([
    2,
    `review: the repository at ${await realpath(scratch)} has no commit yet: commit the fixtures, then npm run review compares later changes with them.`,
  ]);
  await commitAll('hello');
  const unknown = await review('nope');
  expect(unknown.exitCode).toBe(2);
  expect(unknown.stderr).toMatch(/^review: unknown scenario\(s\): nope \(known: hello;/);
  const base = await review('--base', 'no-such-branch');
  expect(base.exitCode).toBe(2);
  expect(base.stderr).toContain('review: no-such-branch is not a commit of the repository');
});
