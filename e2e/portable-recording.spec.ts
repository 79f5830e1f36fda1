/**
 * A recording replays on any account: a user's project (e2e/user-project.ts) recorded through the HTTP model
 * server as root (a CI container) replays as an unprivileged user, and the reverse. Its agent, like codex, sends
 * the constant `/root` in its requests: root's home is a fixed system path, not a secret, so it is no root
 * (docs/decisions/0015-real-home-root.md). Run as root (it creates the other account); skipped otherwise.
 * The copy's run then shows a drifted replay as the user reads it: terminal, cause, accept command.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { type Emulator, startEmulator } from '@acp-snapshot/emulator';
import { expect, REPO_ROOT, test } from '@acp-snapshot/playwright/testing';
import {
  type Account,
  copyUserProject,
  giveUserProject,
  RECORDED,
  recordedFiles,
  runUserProject,
  USER_PROJECT_MODEL,
  writeUserProject,
} from './user-project.js';

/** The unprivileged account the replays (and the reverse recording) run as. */
const OTHER = 'acpsnapother';

function otherAccount(): Account {
  try {
    execFileSync('id', ['-u', OTHER], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--create-home', OTHER], { stdio: 'ignore' });
  }
  const id = (flag: string) => Number(execFileSync('id', [flag, OTHER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * The other account runs Playwright from this repository's node_modules: each directory above the repository
 * must let it pass. A clone inside a private temporary directory (`mktemp -d`, mode 0700) does not; the search
 * bit (no read) is lent for the file's run and given back.
 */
const lent: { dir: string; mode: number }[] = [];
test.beforeAll(async () => {
  if (process.getuid?.() !== 0) return;
  for (let dir = dirname(REPO_ROOT); ; dir = dirname(dir)) {
    const { mode } = await stat(dir);
    if ((mode & 0o001) === 0) {
      lent.push({ dir, mode: mode & 0o7777 });
      await chmod(dir, (mode & 0o7777) | 0o001);
    }
    if (dir === dirname(dir)) break;
  }
});
test.afterAll(async () => {
  for (const { dir, mode } of lent.splice(0)) await chmod(dir, mode);
});

interface Annotation {
  type: string;
  description?: string;
}
interface ReportTest {
  annotations: Annotation[];
  results: { annotations?: Annotation[] }[];
}
interface ReportSuite {
  specs?: { title: string; tests: ReportTest[] }[];
  suites?: ReportSuite[];
}

/** Every annotation of the spec titled `title` in a Playwright JSON report. */
function annotationsOf(suites: readonly ReportSuite[], title: string): Annotation[] {
  const out: Annotation[] = [];
  for (const s of suites) {
    for (const spec of s.specs ?? [])
      if (spec.title === title)
        for (const t of spec.tests)
          out.push(...t.annotations, ...t.results.flatMap((r) => r.annotations ?? []));
    out.push(...annotationsOf(s.suites ?? [], title));
  }
  return out;
}

/**
 * Edits the recorded test's prompt and replays it keylessly: the user reads the drift in the terminal (the JSON
 * path that changed, both texts) and, in the report, its cause read from the drift's data with the command that
 * accepts it in this project (its `:record` twin, the test by title).
 */
async function expectDriftCause(project: string, report: string): Promise<void> {
  // The prompt changed in the spec: the replay has no recorded exchange for the request it now sends.
  const spec = join(project, 'tests', 'where.spec.mts');
  await writeFile(
    spec,
    (await readFile(spec, 'utf8')).replace("'Where are your skills?'", "'Where are your skills kept?'"),
  );
  const replayed = await runUserProject(project, ['--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: report,
  });
  expect(replayed.exitCode, replayed.output).toBe(1);
  // The terminal: where the request changed and both texts there.
  expect(replayed.output).toContain('first differing at body.messages[1].content (1 difference(s) in all):');
  expect(replayed.output).toContain('recorded: "Where are your skills?" (at character 21)');
  expect(replayed.output).toContain('live:     "Where are your skills kept?" (at character 21)');
  // The report: the test's cause, read from the drift's data, and the run's failures by cause with the
  // command that re-records this test in this project.
  const suites = (JSON.parse(await readFile(report, 'utf8')) as { suites: ReportSuite[] }).suites;
  const cause = annotationsOf(suites, 'where the skills are').find((a) => a.type === 'cause');
  expect(cause?.description).toBe(
    "the model request's body.messages[1].content changed: Where are your skills{+ kept+}?",
  );
  const byCause = annotationsOf(suites, 'ACP protocol coverage and failures by cause').find(
    (a) => a.type === 'failures by cause',
  );
  expect(byCause?.description).toContain(
    "1. 1 test of project tiny: the model request's body.messages[1].content changed: Where are your skills{+ kept+}?",
  );
  expect(byCause?.description).toContain(
    "if intended, accept it with: npx playwright test --project=tiny:record -g 'where the skills are' (with the upstream's URL and key in the environment)",
  );
}

let emulator: Emulator;
let work: string;
test.beforeEach(async () => {
  emulator = await startEmulator({ script: USER_PROJECT_MODEL });
  work = await mkdtemp(join(tmpdir(), 'acp-snap-accounts-'));
  // mkdtemp's directory is its creator's alone; the other account works in the project inside it.
  await chmod(work, 0o755);
});
test.afterEach(async () => {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
});

const record = { MODEL_UPSTREAM_URL: '', TINY_MODEL_KEY: 'local-no-key' };

for (const [recorder, replayer] of [
  ['root', OTHER],
  [OTHER, 'root'],
] as const) {
  test(`recorded as ${recorder}, the test replays as ${replayer}`, async () => {
    test.skip(
      process.getuid?.() !== 0,
      'needs root: it records as root and replays as another account (setpriv)',
    );
    expect(userInfo().homedir, 'root of this machine').toBe('/root');
    const other = otherAccount();
    const as = (name: string) => (name === 'root' ? undefined : other);
    const project = join(work, 'project');
    await writeUserProject(project);
    await giveUserProject(project, other);
    const env = { ...record, MODEL_UPSTREAM_URL: emulator.url };
    const recorded = await runUserProject(project, ['--project=tiny:record'], env, as(recorder));
    expect(recorded.exitCode, recorded.output).toBe(0);
    const files = await recordedFiles(project);
    // The constant stays as the agent sent it; the account's own home and name appear nowhere.
    expect(files['exchanges.jsonl']).toContain('"agent_name":"/root"');
    expect(files['exchanges.jsonl']).toContain('You are </root>.');
    expect(files['stdout.jsonl']).toContain('I am </root>');
    expect(JSON.stringify(files)).not.toContain('{{realHome}}');
    expect(JSON.stringify(files)).not.toContain(OTHER);
    // Replayed keylessly (the upstream is gone) on the other account, in its checkout of the project.
    await emulator.close();
    await giveUserProject(project, other);
    const replayed = await runUserProject(project, [], {}, as(replayer));
    expect(replayed.exitCode, `${RECORDED} replayed as ${replayer}:\n${replayed.output}`).toBe(0);
    expect(replayed.output).toContain('2 passed'); // the test, and the run's coverage
  });
}

for (const vendored of [false, true]) {
  const where = vendored ? 'vendored in the project (its own package)' : 'installed in the project';
  test(`an agent ${where}: recorded in one checkout, the test replays from a copy at another path, and records there the same files`, async () => {
    const first = join(work, 'a', 'project');
    // Another length too: nothing of the recording may depend on where the checkout is.
    const second = join(work, 'elsewhere', 'ci-checkout', 'project');
    await mkdir(dirname(first), { recursive: true });
    await writeUserProject(first, { vendored });
    const env = { ...record, MODEL_UPSTREAM_URL: emulator.url };
    const recorded = await runUserProject(first, ['--project=tiny:record'], env);
    expect(recorded.exitCode, recorded.output).toBe(0);
    const files = await recordedFiles(first);
    // The agent's own files are named by the install root and the project's by the project root (the same
    // directory when the agent is installed in the project), on stdout and in its requests.
    const install = vendored ? '{{install}}' : '{{install}}/agent';
    const project = vendored ? '{{project}}' : '{{install}}';
    expect(files['stdout.jsonl']).toContain(`Bundled skill: ${install}/bundled/skills/review/SKILL.md`);
    expect(files['stdout.jsonl']).toContain(`Project tests: ${project}/tests`);
    expect(files['exchanges.jsonl']).toContain(`Your skills are in ${install}/bundled/skills.`);
    expect(JSON.stringify(files)).not.toContain(work);
    await copyUserProject(first, second);
    await test.step('replayed from the copy, keylessly', async () => {
      const replayed = await runUserProject(second, []);
      expect(replayed.exitCode, `${RECORDED} replayed from ${second}:\n${replayed.output}`).toBe(0);
      expect(replayed.output).toContain('2 passed'); // the test, and the run's coverage
    });
    await test.step('recorded again in the copy (the emulator still up): the same bytes', async () => {
      const again = await runUserProject(second, ['--project=tiny:record'], env);
      expect(again.exitCode, again.output).toBe(0);
      expect(await recordedFiles(second)).toEqual(files);
    });
    if (!vendored)
      await test.step('a changed prompt: the drift in the terminal, its cause and the command that accepts it in the report', async () => {
        await expectDriftCause(second, join(work, 'report.json'));
      });
  });
}
