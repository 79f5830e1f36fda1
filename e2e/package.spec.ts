/**
 * The harness as a user gets it: `npm pack` of playwright/, installed into a scratch project outside the
 * repository (from the npm cache where it can; one pack and install shared by the run,
 * playwright/src/testing/packed-harness.ts), with the install command, config and spec of docs/your-agent.md copied
 * verbatim. The spec runs against the SDK example agent, then
 * against our agent replaying recorded model answers; the snapshots it writes are checked, and a second
 * run compares with them. Run by `npm test` (project record-emulator).
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  expect,
  fixturesDir,
  packedProject,
  pruneSidecars,
  REPO_ROOT,
  SDK_EXAMPLE_AGENT,
  TARBALL,
  test,
} from '@acp-snapshot/playwright/testing';
import { execa } from 'execa';
import { tempFixtures } from './fixture-copy.js';

/** docs/your-agent.md's code blocks, keyed by the file their first comment line names (the first `sh`: the install). */
async function readmeExample(): Promise<{ install: string; files: Record<string, string> }> {
  const guide = await readFile(join(REPO_ROOT, 'docs/your-agent.md'), 'utf8');
  const files: Record<string, string> = {};
  let install = '';
  for (const m of guide.matchAll(/```(\w+)\n([\s\S]*?)```/g)) {
    const [, lang, body] = m;
    if (lang === 'sh' && !install) install = body!.trim();
    const named = /^\/\/ (\S+)\n/.exec(body!);
    if (named && !files[named[1]!]) files[named[1]!] = body!;
  }
  expect(install, 'docs/your-agent.md shows the install command in a sh block').not.toBe('');
  return { install, files };
}

const sh = (command: string, cwd: string, env: Record<string, string> = {}) =>
  execa('sh', ['-c', command], { cwd, all: true, reject: false, env: { ...env, FORCE_COLOR: '0' } });

test('the packed harness installs into a project outside the repository and its README example runs there on two agents', async () => {
  // Seven Playwright runs in a scratch project (and the pack and install if no test made them yet): minutes on a loaded 2-core machine.
  test.setTimeout(600_000);
  const { install, files } = await readmeExample();
  expect(Object.keys(files).sort()).toEqual(['playwright.config.ts', 'tests/agent.spec.ts']);
  const root = await mkdtemp(join(tmpdir(), 'acp-snap-user-'));
  const project = join(root, 'project');
  try {
    await test.step('npm pack -w playwright, installed as the README says (one install shared by the run)', async () => {
      expect(install).toContain(`./${TARBALL}`);
      await packedProject(project, { install });
      expect((await readdir(project)).sort()).toEqual([
        TARBALL,
        'node_modules',
        'package-lock.json',
        'package.json',
      ]);
      const installed = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
      expect(installed.devDependencies['@acp-snapshot/playwright']).toBe(`file:${TARBALL}`);
      for (const [file, text] of Object.entries(files)) {
        await execa('mkdir', ['-p', join(project, file, '..')]);
        await writeFile(join(project, file), text);
      }
    });
    const TEST = 'a-prompt-streams-an-answer-and-ends-the-turn';
    const snapshots = join(project, 'tests/__acp__/agent.spec.ts/sdk-example', TEST);
    await test.step("the README's files compile against the package's bundled types", async () => {
      await writeFile(
        join(project, 'tsconfig.json'),
        `${JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: true, types: [] }, include: Object.keys(files) })}\n`,
      );
      const tsc = await sh(
        `${process.execPath} ${join(REPO_ROOT, 'node_modules/typescript/bin/tsc')} -p .`,
        project,
      );
      expect(tsc.exitCode, tsc.all).toBe(0);
    });
    await test.step('the SDK example agent: the first run writes the snapshots, the second compares', async () => {
      const first = await sh('npx playwright test', project);
      const written = (await readdir(snapshots).catch(() => [])).sort();
      // Like toMatchSnapshot: a missing snapshot is written, and the run that wrote it fails.
      expect(first.all).toContain('no snapshot yet; written: review it, commit it, and run again');
      expect(written, first.all).toEqual(['stdout.jsonl', 'workspace.json']);
      expect(await readFile(join(snapshots, 'workspace.json'), 'utf8')).toBe('{\n  "files": []\n}\n');
      const wire = await readFile(join(snapshots, 'stdout.jsonl'), 'utf8');
      expect(wire).toContain('"sessionId":"{{sessionId:1}}"');
      expect(wire).toContain('"stopReason":"end_turn"');
      expect(wire).toContain('"sessionUpdate":"tool_call"');
      const second = await sh('npx playwright test', project);
      expect(second.exitCode, second.all).toBe(0);
      // The two tests, and the run's protocol coverage (defineAcpConfig's acp-coverage teardown).
      expect(second.all).toContain('3 passed');
      expect(second.all).toContain('[acp-coverage]');
    });
    const ours = [
      process.execPath,
      join(REPO_ROOT, 'agent/dist/main.js'),
      '--overlay',
      join(REPO_ROOT, 'agent/overlays/replay.json'),
    ];
    await test.step('our agent, replaying recorded model answers, runs the same spec', async () => {
      const scenarios = join(fixturesDir(), 'scenarios');
      await cp(join(scenarios, 'hello/session.jsonl'), join(project, 'recordings/hello.jsonl'));
      await cp(join(scenarios, 'cancel-mid-stream/session.jsonl'), join(project, 'recordings/hang.jsonl'));
      await cp(
        join(scenarios, 'cancel-mid-stream/replay.override.json'),
        join(project, 'recordings/hang.override.json'),
      );
      // One project per recording: the model answers a test gets are the ones recorded for its prompt.
      await writeFile(
        join(project, 'ours.config.ts'),
        `import { defineAcpConfig } from '@acp-snapshot/playwright';
const agentProfile = { command: ${JSON.stringify(ours)} };
const config = defineAcpConfig({ agents: { ours: agentProfile } });
export default {
  ...config,
  projects: [
    { name: 'ours', grep: /streams an answer/, use: { agentProfile, model: { kind: 'replay', log: 'recordings/hello.jsonl' } } },
    { name: 'ours', grep: /cancelled/, use: { agentProfile, model: { kind: 'replay', log: 'recordings/hang.jsonl', override: 'recordings/hang.override.json' } } },
  ],
};
`,
      );
      await sh('npx playwright test -c ours.config.ts', project);
      const second = await sh('npx playwright test -c ours.config.ts', project);
      expect(second.exitCode, second.all).toBe(0);
      expect(second.all).toContain('2 passed');
      const dir = join(project, 'tests/__acp__/agent.spec.ts/ours', TEST);
      expect((await readdir(dir)).sort()).toEqual(['session.jsonl', 'stdout.jsonl', 'workspace.json']);
      const log = await readFile(join(dir, 'session.jsonl'), 'utf8');
      expect(log).toContain('"cwd":"{{cwd}}"');
      const wire = await readFile(join(dir, 'stdout.jsonl'), 'utf8');
      expect(wire).toContain('"text":" Nice"');
    });
    await test.step("our agent replaying another prompt's recording: the replay plugin's drift is the failure and, as data, its cause", async () => {
      await cp(
        join(fixturesDir(), 'scenarios/read-file/session.jsonl'),
        join(project, 'recordings/other.jsonl'),
      );
      await writeFile(
        join(project, 'drift.config.ts'),
        `import { defineAcpConfig } from '@acp-snapshot/playwright';
const agentProfile = { command: ${JSON.stringify(ours)} };
const config = defineAcpConfig({ agents: { ours: agentProfile } });
export default {
  ...config,
  projects: [{ name: 'ours', grep: /streams an answer/, use: { agentProfile, model: { kind: 'replay', log: 'recordings/other.jsonl' } } }],
};
`,
      );
      const report = join(project, 'drift-report.json');
      const run = await sh('npx playwright test -c drift.config.ts --reporter=list,json', project, {
        PLAYWRIGHT_JSON_OUTPUT_NAME: report,
      });
      expect(run.exitCode, run.all).toBe(1);
      // The terminal: the plugin's drift, the part and both texts.
      expect(run.all).toContain('sends a different request than the recording');
      expect(run.all).toContain('first differing part messages[0].content');
      // The report: the cause, read from the drift the plugin reported as data (not from its text).
      const causes: string[] = [];
      JSON.parse(await readFile(report, 'utf8'), (_key, value: { type?: unknown; description?: unknown }) => {
        if (value?.type === 'cause' && typeof value.description === 'string') causes.push(value.description);
        return value;
      });
      // One cause (the report lists a test's annotations on the test and on its result).
      expect([...new Set(causes)]).toHaveLength(1);
      expect(causes[0]).toMatch(/^the model request's messages\[0\]\.content changed: .*\S/);
    });
    await test.step('protocol coverage: what our agent declared and the spec never did fails a run with failOnGap, and the command prints it', async () => {
      await writeFile(
        join(project, 'gaps.config.ts'),
        `import { defineAcpConfig } from '@acp-snapshot/playwright';
export default defineAcpConfig({
  agents: { ours: { command: ${JSON.stringify(ours)} } },
  model: { kind: 'replay', log: 'recordings/hello.jsonl' },
  coverage: { failOnGap: true },
  playwright: { grep: /streams an answer/, snapshotPathTemplate: '{testDir}/__acp__/{testFilePath}/ours/{arg}{ext}' },
});
`,
      );
      const gaps = await sh('npx playwright test -c gaps.config.ts', project);
      expect(gaps.exitCode, gaps.all).toBe(1);
      expect(gaps.all).toContain('1 passed');
      expect(gaps.all).toContain('failOnGap is set');
      expect(gaps.all).toContain('ours: declared `loadSession`, never loaded');
      const printed = await sh('npx acp-snapshot coverage', project);
      expect(printed.exitCode, printed.all).toBe(0);
      expect(printed.all).toMatch(/acp-snapshot coverage: ours \(acp-snapshot-agent [\d.]+\), 1 test\(s\)/);
      expect(printed.all).toMatch(
        /session\/prompt → ok\s+1 test\(s\): agent\.spec\.ts › a prompt streams an answer/,
      );
      expect((await sh('npx acp-snapshot coverage --fail-on-gap', project)).exitCode).toBe(1);
    });
    await test.step('a changed answer fails naming the snapshot, and --update-snapshots accepts it', async () => {
      const file = join(snapshots, 'stdout.jsonl');
      const committed = await readFile(file, 'utf8');
      await writeFile(file, committed.replace('"stopReason":"end_turn"', '"stopReason":"max_tokens"'));
      const red = await sh('npx playwright test', project);
      expect(red.exitCode, red.all).toBe(1);
      expect(red.all).toContain(`${TEST}/stdout.jsonl`);
      expect(red.all).toContain(
        "npx playwright test --update-snapshots -g 'a prompt streams an answer and ends the turn'",
      );
      expect(red.all).toContain('stopReason');
      const update = await sh('npx playwright test --update-snapshots', project);
      expect(update.exitCode, update.all).toBe(0);
      expect(await readFile(file, 'utf8')).toBe(committed);
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a scenario corpus in a project outside the repository: scenarioSuite(), scenarioProjects() and the acp-snapshot command', async () => {
  // The shared pack and install may be this test's to make, or another worker's to wait for.
  test.setTimeout(600_000);
  const root = await mkdtemp(join(tmpdir(), 'acp-snap-corpus-'));
  const project = join(root, 'project');
  try {
    await test.step('the packed harness, installed as the README says', () => packedProject(project));
    // A corpus of its own (its own config and fixtures), as a team with committed scenarios sets it up.
    const corpus = join(project, 'corpus');
    await tempFixtures(['hello', 'sdk-example-permission'], join(corpus, 'fixtures'));
    await pruneSidecars(join(corpus, 'fixtures'));
    const ours = [process.execPath, join(REPO_ROOT, 'agent/dist/main.js'), '--overlay'];
    await writeFile(
      join(corpus, 'playwright.config.ts'),
      `import { defineConfig } from '@playwright/test';
import { scenarioProjects } from '@acp-snapshot/playwright';
const ours = ${JSON.stringify(ours)};
export default defineConfig({
testDir: '.',
retries: 0,
projects: scenarioProjects({
  replay: { command: [...ours, ${JSON.stringify(join(REPO_ROOT, 'agent/overlays/replay.json'))}] },
  agents: { 'sdk-example': { command: [process.execPath, ${JSON.stringify(SDK_EXAMPLE_AGENT)}] } },
}),
});
`,
    );
    await writeFile(
      join(corpus, 'scenarios.spec.ts'),
      "import { scenarioSuite } from '@acp-snapshot/playwright';\n\nscenarioSuite();\n",
    );
    // The list reporter whatever the environment (under CI the default is dots).
    const green = await sh('npx playwright test --reporter=list', corpus);
    expect(green.exitCode, green.all).toBe(0);
    // Two scenario replays, their two fixture-rule tests, and the rules of the tree as a whole.
    expect(green.all).toMatch(/✓ .*\[replay\] .* hello \(/);
    expect(green.all).toMatch(/✓ .*\[guards\] .* hello: fixture rules @acp-guards/);
    expect(green.all).toMatch(/✓ .*\[replay\] .* sdk-example-permission \(/);
    const check = await sh('npx acp-snapshot check', corpus);
    expect(check.exitCode, check.all).toBe(0);
    expect(check.all).toContain('guards: 2 scenario(s): hello, sdk-example-permission');
    // A scenario naming an agent the config does not know breaks a rule, named by the file.
    const input = join(corpus, 'fixtures/scenarios/hello/input.json');
    const text = await readFile(input, 'utf8');
    await writeFile(input, text.replace(/^\{/, '{ "agent": "nope",'));
    const bad = await sh('npx acp-snapshot check', corpus);
    expect(bad.exitCode, bad.all).toBe(1);
    expect(bad.all).toContain('agent: unknown agent "nope" (known: sdk-example)');
    await writeFile(input, text);
    const usage = await sh('npx acp-snapshot frobnicate', corpus);
    expect([usage.exitCode, usage.all]).toEqual([
      2,
      expect.stringContaining('acp-snapshot: unknown command "frobnicate"'),
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
