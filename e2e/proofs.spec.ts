/**
 * Proofs of the suite's promises, run by `npm test` (project record-emulator): a recording against
 * the emulator replays green and re-records byte-identically; replay never reaches a model even with
 * a key and base URL exported; a changed prompt fails with the replay drift error, not a generic diff.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  checkFixtures,
  discoverScenarios,
  expect,
  findingsText,
  fixturesDir,
  machineRoots,
  normalizeJsonlText,
  pruneSidecars,
  REPO_ROOT,
  type RunDirs,
  readExpected,
  recordScenario,
  refreshScenario,
  replayFailures,
  replayVerdict,
  runCorpusScenario,
  type ScenarioPaths,
  scenarioPaths,
  test,
} from '@acp-snapshot/playwright/testing';
import { tempFixtures } from './fixture-copy.js';

const ROUND_TRIP = 'hello';

async function snapshotFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of (await readdir(dir, { recursive: true })).map(String).sort()) {
    const text = await readFile(join(dir, rel), 'utf8').catch(() => undefined);
    if (text !== undefined) out[rel] = text;
  }
  return out;
}

type ScenarioRun = Awaited<ReturnType<typeof runCorpusScenario>>;

/** A replay that equals the scenario's fixtures on every surface: the log, stdout and the workspace. */
async function expectReplayEqualsFixtures(
  name: string,
  paths: ScenarioPaths,
  run: ScenarioRun,
): Promise<void> {
  const verdict = replayVerdict(paths, run, await readExpected(paths), REPO_ROOT);
  expect(findingsText(verdict.findings), `${name}: the replay equals the fixtures`).toBe('');
}

/** Replays the named committed scenarios two at a time (each run has its own roots, so they are independent). */
async function replayCorpus(
  names: string[],
  dirs: RunDirs,
  replayCommand: string[],
  agents: Readonly<Record<string, readonly string[]>>,
  onRun: (name: string, run: ScenarioRun) => void,
): Promise<void> {
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const run = await runCorpusScenario({
        paths: scenarioPaths(fixturesDir(), name),
        mode: 'replay',
        dirs,
        agentCommand: replayCommand,
        agents,
      });
      onRun(name, run);
    }
  };
  await Promise.all([worker(), worker()]);
}

/**
 * Scenarios whose model behaves like a real one (absolute paths in tool arguments, roots quoted in answers,
 * streamed in pieces, the test root and the real home in tool output), plus the plainest one.
 */
const REAL_MODEL_ROUND_TRIPS = [ROUND_TRIP, 'absolute-paths', 'parent-listing', 'real-home', 'bash-spill'];

for (const name of REAL_MODEL_ROUND_TRIPS) {
  test(`record round trip (${name}): the recording replays equal to the live run and a second recording in other roots is byte-identical`, async ({
    agentCommand,
    replayCommand,
    runDirs,
  }) => {
    test.skip(!discoverScenarios(fixturesDir()).includes(name), `scenario ${name} not committed yet`);
    const dir = await tempFixtures([name]);
    try {
      const paths = scenarioPaths(dir, name);
      const target = { kind: 'emulator', apiKey: 'local-no-key' } as const;
      // Each recording and replay runs in freshly generated roots: other cwd, spill, persist and test root.
      await test.step('record', () =>
        recordScenario({ paths, fixtures: dir, agentCommand, target, dirs: runDirs }));
      const first = await snapshotFiles(dir);
      await test.step('replay the recording: every surface equals the live run', async () => {
        const run = await runCorpusScenario({
          paths,
          mode: 'replay',
          dirs: runDirs,
          agentCommand: replayCommand,
        });
        await expectReplayEqualsFixtures(name, paths, run);
      });
      await test.step('record again', () =>
        recordScenario({ paths, fixtures: dir, agentCommand, target, dirs: runDirs }));
      expect(await snapshotFiles(dir)).toEqual(first);
      // And the committed fixtures are what a recording makes today (nothing hand-made, nothing stale). The
      // real-home scenario was recorded where the home names someone ({{realHome}}); recorded where it names
      // nobody (/root: decision 0015) the home stays as written, so that comparison needs such a home.
      if (name === 'real-home' && !machineRoots().realHome) return;
      const committed = await snapshotFiles(scenarioPaths(fixturesDir(), name).dir);
      for (const [rel, text] of Object.entries(committed))
        expect(first[`scenarios/${name}/${rel}`], rel).toBe(text);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test('drift: one changed prompt word fails with the replay drift error naming the part and the refresh command', async ({
  replayCommand,
  runDirs,
}) => {
  test.skip(
    !discoverScenarios(fixturesDir()).includes(ROUND_TRIP),
    `scenario ${ROUND_TRIP} not committed yet`,
  );
  const dir = await tempFixtures([ROUND_TRIP]);
  try {
    const paths = scenarioPaths(dir, ROUND_TRIP);
    const input = JSON.parse(await readFile(paths.input, 'utf8'));
    const prompt = input.steps.find((s: { op: string }) => s.op === 'prompt');
    prompt.text = prompt.text.replace(/\bhello\b/i, 'goodbye');
    await writeFile(paths.input, JSON.stringify(input));
    const run = await runCorpusScenario({
      paths,
      mode: 'replay',
      dirs: runDirs,
      agentCommand: replayCommand,
    });
    const failures = replayFailures(run.result.stderr, run.records).join('\n');
    expect(failures).toMatch(/messages\[\d+\]/);
    expect(failures).toContain(`npm run refresh -- ${ROUND_TRIP}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('refresh: keeps an unchanged scenario byte-identical and refuses when the model calls no longer line up', async ({
  replayCommand,
  runDirs,
}) => {
  test.skip(
    !discoverScenarios(fixturesDir()).includes(ROUND_TRIP),
    `scenario ${ROUND_TRIP} not committed yet`,
  );
  const dir = await tempFixtures([ROUND_TRIP]);
  try {
    const paths = scenarioPaths(dir, ROUND_TRIP);
    const first = await snapshotFiles(dir);
    expect(
      await refreshScenario({ paths, fixtures: dir, agentCommand: replayCommand, dirs: runDirs }),
    ).toEqual({
      changed: false,
    });
    expect(await snapshotFiles(dir)).toEqual(first);
    // One more prompt: the agent now makes a model call the recording does not hold.
    const input = JSON.parse(await readFile(paths.input, 'utf8'));
    input.steps.push({ op: 'prompt', text: 'And once more, please.' });
    await writeFile(paths.input, JSON.stringify(input));
    await expect(
      refreshScenario({ paths, fixtures: dir, agentCommand: replayCommand, dirs: runDirs }),
    ).rejects.toThrow(
      `${ROUND_TRIP}: refresh refused: the model calls no longer line up with the recording; re-record the scenario (npm run record -- ${ROUND_TRIP}).`,
    );
    expect(await readFile(paths.session, 'utf8')).toBe(first[`scenarios/${ROUND_TRIP}/session.jsonl`]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** One scenario of each kind: plain, spill by absolute path, overridden, derived (all-row-kinds), another agent. */
const REFRESH_KINDS = [
  'hello',
  'bash-spill',
  'stream-cut',
  'all-row-kinds',
  'sdk-example-permission',
  'absolute-paths',
];

/**
 * A copy of the built agent with intended changes (text replaced in its bundle), inside the repository so
 * it resolves the workspace packages as the real one does; returns the replay command that runs it.
 */
async function changedAgent(replayCommand: string[], changes: Array<[string, string]>): Promise<string[]> {
  const script = replayCommand.find((a) => a.endsWith('/dist/main.js'))!;
  const agentDir = dirname(dirname(script));
  // Not under test-results/: a concurrent Playwright run of the repository's config may clear that.
  await mkdir(join(REPO_ROOT, '.tmp'), { recursive: true });
  const copy = await mkdtemp(join(REPO_ROOT, '.tmp', 'changed-agent-'));
  await cp(agentDir, copy, { recursive: true, filter: (src) => !src.includes('node_modules') });
  const main = join(copy, 'dist/main.js');
  let text = await readFile(main, 'utf8');
  for (const [from, to] of changes) {
    expect(text.split(from).length - 1, `the built agent holds ${JSON.stringify(from)} once`).toBe(1);
    text = text.replace(from, to);
  }
  await writeFile(main, text);
  return replayCommand.map((a) =>
    a === script ? main : a.startsWith(agentDir) ? copy + a.slice(agentDir.length) : a,
  );
}

test('refresh lands intended changes: a prompt word, a tool description and an output format, for every scenario kind', async ({
  replayCommand,
  agentCommands: agents,
  runDirs,
}) => {
  const names = REFRESH_KINDS.filter((n) => discoverScenarios(fixturesDir()).includes(n));
  const dir = await tempFixtures(names);
  await mkdir(join(REPO_ROOT, 'test-results'), { recursive: true });
  const command = await changedAgent(replayCommand, [
    ['Make the smallest change', 'Make the minimal change'],
    ['Read a text file. Each output line', 'Read one text file. Each output line'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the template literal as it stands in the agent's bundle.
    ['[exit code: ${exitCode}]', '[exit status: ${exitCode}]'],
  ]);
  try {
    const before = await snapshotFiles(dir);
    await test.step('the changed agent fails the committed fixtures', async () => {
      const run = await runCorpusScenario({
        paths: scenarioPaths(dir, 'hello'),
        mode: 'replay',
        dirs: runDirs,
        agentCommand: command,
        agents,
      });
      expect(replayFailures(run.result.stderr, run.records).join('\n')).toContain(
        'first differing part system',
      );
    });
    for (const name of names) {
      await test.step(`refresh ${name}`, () =>
        refreshScenario({
          paths: scenarioPaths(dir, name),
          fixtures: dir,
          agentCommand: command,
          agents,
          dirs: runDirs,
        }));
    }
    await pruneSidecars(dir);
    expect(await checkFixtures(dir), 'the guards after the refresh').toEqual([]);
    const after = await snapshotFiles(dir);
    expect(after['scenarios/bash-spill/stdout.expected.jsonl']).toContain('[exit status: 0]');
    expect(after['scenarios/stream-cut/replay.override.json']).not.toBe(
      before['scenarios/stream-cut/replay.override.json'],
    );
    expect(after['scenarios/all-row-kinds/source.raw.jsonl']).toContain('Make the minimal change');
    expect(after['scenarios/sdk-example-permission/session.jsonl']).toBe(
      before['scenarios/sdk-example-permission/session.jsonl'],
    );
    for (const name of names) {
      await test.step(`replay ${name}: green with no hand edits`, async () => {
        const paths = scenarioPaths(dir, name);
        const run = await runCorpusScenario({
          paths,
          mode: 'replay',
          dirs: runDirs,
          agentCommand: command,
          agents,
        });
        await expectReplayEqualsFixtures(name, paths, run);
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(dirname(dirname(command.find((a) => a.endsWith('/dist/main.js'))!)), {
      recursive: true,
      force: true,
    });
  }
});

test('keyless and deterministic: two full replays of the corpus, the first with a key and base URL exported, make zero model requests and give byte-identical normalized outputs', async ({
  replayCommand,
  agentCommands: agents,
  runDirs,
}) => {
  const names = discoverScenarios(fixturesDir());
  test.skip(names.length === 0, 'no scenarios committed yet');
  // Each run gets fresh roots (other generated cwd, spill and persistence paths), so equality here means the
  // normalized wire and log do not depend on where or when a run happened.
  const fullRun = async (raw?: (name: string, stdout: string) => void): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    await replayCorpus(names, runDirs, replayCommand, agents, (name, run) => {
      raw?.(name, run.result.stdout.map((l) => l.text).join('\n'));
      out[`${name}/stdout`] = run.stdoutText;
      out[`${name}/session`] = normalizeJsonlText(run.projected.text);
    });
    return out;
  };
  // Keyless: a key and a base URL in the environment reach no model (a counting emulator) and no output.
  const { startEmulator } = await import('@acp-snapshot/emulator');
  const emulator = await startEmulator({ script: { responses: [] } });
  const saved = { key: process.env.DEEPSEEK_API_KEY, url: process.env.ACP_SNAPSHOT_BASE_URL };
  process.env.DEEPSEEK_API_KEY = 'sk-canary0000000000000000000000';
  process.env.ACP_SNAPSHOT_BASE_URL = emulator.url;
  let first: Record<string, string>;
  try {
    first = await test.step('first full run, with a key and base URL exported', () =>
      fullRun((name, stdout) => expect(stdout, name).not.toContain('sk-canary')));
    expect(emulator.requests).toEqual([]);
  } finally {
    if (saved.key === undefined) delete process.env.DEEPSEEK_API_KEY;
    else process.env.DEEPSEEK_API_KEY = saved.key;
    if (saved.url === undefined) delete process.env.ACP_SNAPSHOT_BASE_URL;
    else process.env.ACP_SNAPSHOT_BASE_URL = saved.url;
    await emulator.close();
  }
  const second = await test.step('second full run', () => fullRun());
  expect(Object.keys(first).length).toBe(names.length * 2);
  for (const key of Object.keys(first).sort()) expect(second[key], key).toBe(first[key]);
});
