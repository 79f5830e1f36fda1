/**
 * Every fix command the suite suggests works in the situation that suggests it. Each test breaks a
 * scratch copy of a scenario the way a user would, runs the suite as a user types it (the npm scripts
 * and `npx playwright test`), takes the command the failure names from its output, runs that, and
 * sees the suite green again. Run by `npm test` (project record-emulator: recording needs the emulator).
 */
import { readFile, writeFile } from 'node:fs/promises';
import {
  discoverScenarios,
  expect,
  fixturesDir,
  scenarioPaths,
  test,
} from '@acp-snapshot/playwright/testing';
import { execa } from 'execa';
import { scratchProject } from './scratch-project.js';

const NAME = 'hello';
const scratch = (env?: Record<string, string>) => scratchProject(NAME, env);

/** The first command in the output that starts with `prefix`: up to a backtick, a parenthesis, ", " or the line's end. */
function suggested(output: string, prefix: string): string {
  const at = output.indexOf(prefix);
  expect(at, `the output names a command starting with "${prefix}":\n${output}`).toBeGreaterThanOrEqual(0);
  return /^[^`)\n]*?(?=[`)\n]|, |$)/.exec(output.slice(at))![0];
}

test.beforeEach(() => {
  test.skip(!discoverScenarios(fixturesDir()).includes(NAME), `scenario ${NAME} not committed yet`);
});

test('a stdout or workspace mismatch names `npm run test:snapshot:update -- -g NAME`, and that command accepts the change', async () => {
  await using sh = await scratch();
  const paths = scenarioPaths(sh.fixtures, NAME);
  const committed = await readFile(paths.stdout, 'utf8');
  const committedWorkspace = await readFile(paths.workspaceExpected, 'utf8');
  // What the agent did before the intended change: one chunk said something else, and it left a file.
  await writeFile(paths.stdout, committed.replace('"text":" Nice"', '"text":" Glad"'));
  const left = { files: [{ path: 'notes.txt', change: 'added', kind: 'text', lines: ['hello', ''] }] };
  await writeFile(paths.workspaceExpected, `${JSON.stringify(left, null, 2)}\n`);
  const red = await sh.run(`npx playwright test -g ${NAME}`);
  expect(red.exitCode, red.output).toBe(1);
  const command = `npm run test:snapshot:update -- -g ${NAME}`;
  expect(red.output).toContain(`${NAME}: stdout differs from stdout.expected.jsonl`);
  expect(red.output).toContain(`${NAME}: the workspace the agent left differs`);
  // Each mismatch names the command, and so does the summary.
  expect(red.output.split(`run \`${command}\``).length - 1).toBe(2);
  expect(suggested(red.output, 'npm run test:snapshot:update')).toBe(command);
  const update = await sh.run(command);
  expect(update.exitCode, update.output).toBe(0);
  // Back to the committed texts, which the replay project shows green.
  expect(await readFile(paths.stdout, 'utf8')).toBe(committed);
  expect(await readFile(paths.workspaceExpected, 'utf8')).toBe(committedWorkspace);
});

test('a drifted request names `npm run refresh -- NAME`, and that command lands the change', async () => {
  await using sh = await scratch();
  const paths = scenarioPaths(sh.fixtures, NAME);
  const input = JSON.parse(await readFile(paths.input, 'utf8'));
  input.steps[2].text = 'Say hello in one short, friendly sentence.';
  await writeFile(paths.input, `${JSON.stringify(input, null, 2)}\n`);
  const red = await sh.run(`npx playwright test -g ${NAME}`);
  expect(red.exitCode, red.output).toBe(1);
  expect(red.output).toContain('first differing part messages[0].content');
  const command = suggested(red.output, 'npm run refresh');
  expect(command).toBe(`npm run refresh -- ${NAME}`);
  const refresh = await sh.run(command);
  expect(refresh.exitCode, refresh.output).toBe(0);
  expect(await readFile(paths.session, 'utf8')).toContain('one short, friendly sentence');
  const green = await sh.run(`npx playwright test -g ${NAME}`);
  expect(green.exitCode, green.output).toBe(0);
});

test('a log that is not canonical names `npm run refresh -- NAME`, and that command makes it canonical', async () => {
  await using sh = await scratch();
  const paths = scenarioPaths(sh.fixtures, NAME);
  const [header, ...rest] = (await readFile(paths.session, 'utf8')).split('\n');
  // The same header with its keys in another order: still a valid log, no longer the canonical text.
  const { type, ...fields } = JSON.parse(header!);
  await writeFile(paths.session, [JSON.stringify({ ...fields, type }), ...rest].join('\n'));
  const red = await sh.run('npm run check');
  expect(red.exitCode, red.output).not.toBe(0);
  expect(red.output).toContain('not the canonical packed projection');
  const command = suggested(red.output, 'npm run refresh');
  expect(command).toBe(`npm run refresh -- ${NAME}`);
  const refresh = await sh.run(command);
  expect(refresh.exitCode, refresh.output).toBe(0);
  const green = await sh.run('npm run check');
  expect(green.exitCode, green.output).toBe(0);
});

test('a corrupt log names `git checkout -- FILE` and `npm run record -- NAME`, and each repairs it', async () => {
  await using sh = await scratch({ ACP_SNAPSHOT_BASE_URL: 'emulator' });
  const paths = scenarioPaths(sh.fixtures, NAME);
  const committed = await readFile(paths.session);
  // Bytes a bad merge or an editor in Latin-1 leaves: refresh cannot read this log either.
  const corrupt = Buffer.concat([committed.subarray(0, 40), Buffer.from([0xe9]), committed.subarray(41)]);
  const git = (...args: string[]) => execa('git', args, { cwd: sh.project });
  await git('init', '-q');
  await git('add', '.');
  await git('-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-qm', 'fixtures');

  await writeFile(paths.session, corrupt);
  const red = await sh.run('npm run check');
  expect(red.exitCode, red.output).not.toBe(0);
  expect(red.output).toContain('refresh cannot read it either');
  // Paths are shown relative to the project (the fixtures directory's parent), where git runs.
  const checkout = suggested(red.output, 'git checkout -- ');
  const record = suggested(red.output, 'npm run record');
  expect(record).toBe(`npm run record -- ${NAME}`);
  await execa('sh', ['-c', checkout], { cwd: sh.project });
  expect(await readFile(paths.session)).toEqual(committed);

  // Corrupt again: the other command repairs it too.
  await writeFile(paths.session, corrupt);
  const recorded = await sh.run(record);
  expect(recorded.exitCode, recorded.output).toBe(0);
  const green = await sh.run('npm run check');
  expect(green.exitCode, green.output).toBe(0);
});
