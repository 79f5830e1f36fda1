import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturesDir, REPO_ROOT, scenarioPaths } from '../scenario/corpus.js';
import { expect, test } from '../testing/suite-test.js';
import { recordScenario, recordTargetFor } from './record.js';
import { RecordGateError } from './record-gate.js';

const SDK_EXAMPLE = 'sdk-example-permission';
/** Our agent in record mode, by command line (as playwright.config.ts runs it). */
const OUR_RECORDING_AGENT = [
  process.execPath,
  join(REPO_ROOT, 'agent/dist/main.js'),
  '--overlay',
  join(REPO_ROOT, 'agent/overlays/record.json'),
];

/** A scratch fixtures directory holding copies of the named committed scenarios (and no sidecars). */
async function scratchFixtures(names: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'acp-snap-recorder-test-'));
  await mkdir(join(dir, 'scenarios'), { recursive: true });
  for (const n of names)
    await cp(join(fixturesDir(), 'scenarios', n), join(dir, 'scenarios', n), { recursive: true });
  return dir;
}

test('a scenario without an emulator script records keyless against an empty emulator; others need a model', () => {
  expect(recordTargetFor(SDK_EXAMPLE, {})).toEqual({ kind: 'emulator', apiKey: 'local-no-key' });
  expect(() => recordTargetFor('hello', {})).toThrow(RecordGateError);
  expect(() => recordTargetFor('hello', {})).toThrow(/^record mode needs a model\. Set DEEPSEEK_API_KEY/);
  expect(recordTargetFor(SDK_EXAMPLE, { DEEPSEEK_API_KEY: 'k' })).toEqual({ kind: 'deepseek', apiKey: 'k' });
  expect(recordTargetFor('hello', { ACP_SNAPSHOT_BASE_URL: 'emulator' }).kind).toBe('emulator');
});

test('the SDK example scenario records without a key, byte-identical to its committed fixtures', async ({
  agentCommand,
  agentCommands: agents,
  runDirs,
}) => {
  const dir = await scratchFixtures([SDK_EXAMPLE]);
  try {
    const paths = scenarioPaths(dir, SDK_EXAMPLE);
    const committed = scenarioPaths(fixturesDir(), SDK_EXAMPLE);
    // Scrambled first, so equality below proves the recording rewrote them.
    await writeFile(paths.session, '');
    await writeFile(paths.stdout, '');
    await writeFile(paths.workspaceExpected, '');
    const target = recordTargetFor(SDK_EXAMPLE, {});
    const { newSidecars, emulatorRequests } = await recordScenario({
      paths,
      fixtures: dir,
      agentCommand,
      agents,
      target,
      dirs: runDirs,
    });
    expect(emulatorRequests).toBe(0);
    expect(await readFile(paths.session, 'utf8')).toBe(await readFile(committed.session, 'utf8'));
    expect(await readFile(paths.stdout, 'utf8')).toBe(await readFile(committed.stdout, 'utf8'));
    expect(await readFile(paths.workspaceExpected, 'utf8')).toBe(
      await readFile(committed.workspaceExpected, 'utf8'),
    );
    for (const f of newSidecars)
      expect(await readFile(f, 'utf8')).toBe(
        await readFile(join(fixturesDir(), 'sidecars', f.slice(f.lastIndexOf('/') + 1)), 'utf8'),
      );
    expect(newSidecars).toHaveLength(2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a keyless recording that makes a model call fails and says how to record one', async ({ runDirs }) => {
  const dir = await scratchFixtures([]);
  try {
    const paths = scenarioPaths(dir, 'needs-a-model');
    await mkdir(paths.dir, { recursive: true });
    await writeFile(
      paths.input,
      JSON.stringify({
        description: 'asks the model something, but has no emulator script',
        steps: [{ op: 'initialize' }, { op: 'new_session' }, { op: 'prompt', text: 'Say hello.' }],
      }),
    );
    await expect(
      recordScenario({
        paths,
        fixtures: dir,
        agentCommand: OUR_RECORDING_AGENT,
        target: recordTargetFor(paths.name, {}),
        dirs: runDirs,
      }),
    ).rejects.toThrow(
      /needs-a-model: the agent made 1 model call\(s\), but the scenario has no emulator script \(.*needs-a-model\.json\), so it was recorded as one that calls no model; to record model calls set DEEPSEEK_API_KEY or ACP_SNAPSHOT_BASE_URL/,
    );
    await expect(readFile(paths.session, 'utf8')).rejects.toThrow(/ENOENT/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
