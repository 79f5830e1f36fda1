/**
 * The corpus shards with Playwright's own `--shard` and `merge-reports`: two shards of a scratch corpus run into
 * separate blob reports, `npx playwright merge-reports` joins them, and the merged report holds every test exactly
 * once, a failed one with its attachments. Run by `npm test` (project record-emulator).
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  discoverScenarios,
  expect,
  fixturesDir,
  REPO_ROOT,
  scenarioPaths,
  test,
} from '@acp-snapshot/playwright/testing';
import { execa } from 'execa';
import { tempFixtures } from './fixture-copy.js';

/** A few quick scenarios: enough for both shards to get tests, fast enough for npm test. */
const NAMES = ['hello', 'read-file', 'no-model', 'multi-turn'];
/** Broken in the copy, so the merged report must carry a failed test's attachments too. */
const BROKEN = 'hello';

interface JsonAttachment {
  name: string;
  path?: string;
  body?: string;
}
interface JsonSuite {
  suites?: JsonSuite[];
  specs?: Array<{
    title: string;
    tests: Array<{ results: Array<{ status: string; attachments: JsonAttachment[] }> }>;
  }>;
}
const specs = (s: JsonSuite): NonNullable<JsonSuite['specs']> => [
  ...(s.specs ?? []),
  ...(s.suites ?? []).flatMap(specs),
];

test.beforeEach(() => {
  const committed = discoverScenarios(fixturesDir());
  test.skip(!NAMES.every((n) => committed.includes(n)), `scenarios ${NAMES.join(', ')} not all committed`);
});

test('two shards into blob reports merge into one report holding every test once, with its attachments', async () => {
  const root = await mkdtemp(join(tmpdir(), 'acp-snap-shard-'));
  try {
    const fixtures = await tempFixtures(NAMES, join(root, 'fixtures'));
    const broken = scenarioPaths(fixtures, BROKEN);
    const stdout = await readFile(broken.stdout, 'utf8');
    expect(stdout).toContain('"text":" Nice"');
    await writeFile(broken.stdout, stdout.replace('"text":" Nice"', '"text":" Glad"'));
    // Matched against the title path (project, file, title): a space, then the name, ends it.
    const grep = ` (${NAMES.join('|')})$`;
    const blobs = join(root, 'all-blobs');
    await mkdir(blobs);
    const exits: number[] = [];
    for (const shard of ['1/2', '2/2']) {
      const n = shard[0]!;
      const env = {
        ACP_SNAPSHOT_FIXTURES: fixtures,
        ACP_SNAPSHOT_RESULTS: join(root, `results-${n}`),
        PLAYWRIGHT_BLOB_OUTPUT_DIR: join(root, `blob-${n}`),
        FORCE_COLOR: '0',
      };
      const r = await execa(
        'npx',
        ['playwright', 'test', '--project=replay', `--shard=${shard}`, '--reporter=blob', '-g', grep],
        { cwd: REPO_ROOT, env, all: true, reject: false },
      );
      exits.push(r.exitCode ?? 1);
      const files = await readdir(env.PLAYWRIGHT_BLOB_OUTPUT_DIR);
      expect(
        files.filter((f) => f.endsWith('.zip')),
        `shard ${shard} writes one blob:\n${r.all}`,
      ).toHaveLength(1);
      for (const f of files) await cp(join(env.PLAYWRIGHT_BLOB_OUTPUT_DIR, f), join(blobs, f));
    }
    // Exactly one shard holds the broken scenario.
    expect(exits.sort()).toEqual([0, 1]);
    const merged = join(root, 'merged.json');
    const m = await execa('npx', ['playwright', 'merge-reports', '--reporter=json', blobs], {
      cwd: REPO_ROOT,
      env: { PLAYWRIGHT_JSON_OUTPUT_NAME: merged, FORCE_COLOR: '0' },
      all: true,
      reject: false,
    });
    expect(m.exitCode, m.all).toBe(0);
    const report = JSON.parse(await readFile(merged, 'utf8')) as { suites: JsonSuite[] };
    // The run's coverage (the acp-coverage teardown) ran in the shards too: there, and apart from the scenarios.
    const COVERAGE = 'ACP protocol coverage and failures by cause';
    const every = report.suites.flatMap(specs);
    expect(every.map((s) => s.title)).toContain(COVERAGE);
    const all = every.filter((s) => s.title !== COVERAGE);
    expect(all.map((s) => s.title).sort()).toEqual([...NAMES].sort());
    for (const s of all) {
      expect(s.tests, s.title).toHaveLength(1);
      expect(s.tests[0]!.results, s.title).toHaveLength(1);
    }
    const byTitle = new Map(all.map((s) => [s.title, s.tests[0]!.results[0]!]));
    expect([...byTitle].filter(([, r]) => r.status !== 'passed').map(([t]) => t)).toEqual([BROKEN]);
    // The failed test's attachments survive the merge: the snapshot's expected/actual and the failure artifacts.
    const attachments = byTitle.get(BROKEN)!.attachments;
    const names = attachments.map((a) => a.name);
    expect(names).toContain('hello/stdout.expected-expected.jsonl');
    expect(names).toContain('hello/stdout.expected-actual.jsonl');
    for (const a of attachments) {
      const content = a.path ? await readFile(a.path, 'utf8') : a.body ? Buffer.from(a.body, 'base64') : '';
      expect(content.length, `attachment ${a.name} has content`).toBeGreaterThan(0);
    }
    const actual = attachments.find((a) => a.name === 'hello/stdout.expected-actual.jsonl')!;
    expect(await readFile(actual.path!, 'utf8')).toContain('"text":" Nice"');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
