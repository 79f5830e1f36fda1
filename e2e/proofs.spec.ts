/**
 * Proofs of the suite's promises, run by `npm test` (project record-emulator): a recording against
 * the emulator replays green and re-records byte-identically; replay never reaches a model even with
 * a key and base URL exported; a changed prompt fails with the replay drift error, not a generic diff.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFailures, unusedRecordedCalls } from './compare.js';
import { expect, test } from './fixtures.js';
import { adoptRecordedProvider } from './harvest.js';
import { normalizeJsonlText } from './normalize.js';
import { recordScenario } from './recorder.js';
import { refreshScenario } from './refresher.js';
import { runFixtureScenario } from './run.js';
import type { RunDirs } from './run-dirs.js';
import { discoverScenarios, fixturesDir, scenarioPaths } from './scenarios.js';

const ROUND_TRIP = 'hello';

async function tempFixtures(names: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'acp-snap-proof-'));
  await mkdir(join(dir, 'scenarios'), { recursive: true });
  await cp(join(fixturesDir(), 'sidecars'), join(dir, 'sidecars'), { recursive: true });
  for (const n of names)
    await cp(join(fixturesDir(), 'scenarios', n), join(dir, 'scenarios', n), { recursive: true });
  return dir;
}

async function snapshotFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const rel of (await readdir(dir, { recursive: true })).map(String).sort()) {
    const text = await readFile(join(dir, rel), 'utf8').catch(() => undefined);
    if (text !== undefined) out[rel] = text;
  }
  return out;
}

type ScenarioRun = Awaited<ReturnType<typeof runFixtureScenario>>;

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
      const run = await runFixtureScenario({
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

test('record round trip: an emulator recording replays green and a second recording is byte-identical', async ({
  agentCommand,
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
    const target = { kind: 'emulator', apiKey: 'local-no-key' } as const;
    await test.step('record', () =>
      recordScenario({ paths, fixtures: dir, agentCommand, target, dirs: runDirs }));
    const first = await snapshotFiles(dir);
    await test.step('replay the recording', async () => {
      const run = await runFixtureScenario({
        paths,
        mode: 'replay',
        dirs: runDirs,
        agentCommand: replayCommand,
      });
      expect(run.result.problems).toEqual([]);
      expect(replayFailures(run.result.stderr, run.records)).toEqual([]);
      const session = await readFile(paths.session, 'utf8');
      expect(unusedRecordedCalls(ROUND_TRIP, run.result.stderr, session)).toBeUndefined();
      expect(normalizeJsonlText(adoptRecordedProvider(run.projected.text, session))).toBe(
        normalizeJsonlText(session),
      );
      expect(run.stdoutText).toBe(await readFile(paths.stdout, 'utf8'));
      expect(run.workspaceText).toBe(await readFile(paths.workspaceExpected, 'utf8'));
    });
    await test.step('record again', () =>
      recordScenario({ paths, fixtures: dir, agentCommand, target, dirs: runDirs }));
    expect(await snapshotFiles(dir)).toEqual(first);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('keyless: replaying the corpus with a key and base URL exported makes zero model requests', async ({
  replayCommand,
  agents,
  runDirs,
}) => {
  const names = discoverScenarios(fixturesDir());
  test.skip(names.length === 0, 'no scenarios committed yet');
  const { startEmulator } = await import('../scripts/emulator/server.js');
  const emulator = await startEmulator({ script: { responses: [] } });
  const saved = { key: process.env.DEEPSEEK_API_KEY, url: process.env.ACP_SNAPSHOT_BASE_URL };
  process.env.DEEPSEEK_API_KEY = 'sk-canary0000000000000000000000';
  process.env.ACP_SNAPSHOT_BASE_URL = emulator.url;
  try {
    await replayCorpus(names, runDirs, replayCommand, agents, (name, run) => {
      expect(run.result.stdout.map((l) => l.text).join('\n'), name).not.toContain('sk-canary');
    });
    expect(emulator.requests).toEqual([]);
  } finally {
    if (saved.key === undefined) delete process.env.DEEPSEEK_API_KEY;
    else process.env.DEEPSEEK_API_KEY = saved.key;
    if (saved.url === undefined) delete process.env.ACP_SNAPSHOT_BASE_URL;
    else process.env.ACP_SNAPSHOT_BASE_URL = saved.url;
    await emulator.close();
  }
});

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
    const run = await runFixtureScenario({
      paths,
      mode: 'replay',
      dirs: runDirs,
      agentCommand: replayCommand,
    });
    const failures = replayFailures(run.result.stderr, run.records).join('\n');
    expect(failures).toMatch(/messages\[\d+\]/);
    expect(failures).toContain(`npx playwright test --project=refresh -g ${ROUND_TRIP}`);
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

test('determinism: two full replays of the corpus give byte-identical normalized outputs', async ({
  replayCommand,
  agents,
  runDirs,
}) => {
  const names = discoverScenarios(fixturesDir());
  test.skip(names.length === 0, 'no scenarios committed yet');
  // Each run gets fresh roots (other generated cwd, spill and persistence paths), so equality here means the
  // normalized wire and log do not depend on where or when a run happened.
  const fullRun = async (): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    await replayCorpus(names, runDirs, replayCommand, agents, (name, run) => {
      out[`${name}/stdout`] = run.stdoutText;
      out[`${name}/session`] = normalizeJsonlText(run.projected.text);
      out[`${name}/workspace`] = run.workspaceText;
    });
    return out;
  };
  const first = await test.step('first full run', fullRun);
  const second = await test.step('second full run', fullRun);
  expect(Object.keys(first).length).toBe(names.length * 3);
  for (const key of Object.keys(first).sort()) expect(second[key], key).toBe(first[key]);
});
