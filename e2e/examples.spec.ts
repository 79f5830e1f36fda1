/**
 * The example projects (examples/*): real ACP agents from npm, each in a project of its own that consumes
 * the harness package as a user's would. Each is installed from its own lockfile and runs its own suite,
 * replayed keylessly from its committed exchange logs three times over (`--repeat-each=3`): every test
 * passes every time, its drift test included, and no model is reachable.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startEmulator } from '@acp-snapshot/emulator';
import { REPO_ROOT } from '@acp-snapshot/playwright/testing';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

interface JsonReport {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  suites: Array<{
    specs?: Array<{
      title: string;
      tests: Array<{
        projectName: string;
        annotations?: Array<{ type: string; description?: string }>;
        results: Array<{ status: string }>;
      }>;
    }>;
    suites?: JsonReport['suites'];
  }>;
}

test.describe.configure({ mode: 'parallel' });

const EXAMPLES = join(REPO_ROOT, 'examples');
const examples = readdirSync(EXAMPLES)
  .map((name) => join(EXAMPLES, name))
  .filter((dir) => existsSync(join(dir, 'package.json')));

for (const dir of examples) {
  test(`examples/${basename(dir)}: replayed keylessly three times over, every test green`, async () => {
    await test.step('install it from its lockfile (skipped when installed and current)', async () => {
      const r = await execa('node', ['scripts/examples.mjs', dir], {
        cwd: REPO_ROOT,
        all: true,
        reject: false,
      });
      expect(r.exitCode, r.all).toBe(0);
    });
    await test.step('npm run check: its fixture tree obeys the rules', async () => {
      const r = await execa('npm', ['run', 'check'], { cwd: dir, all: true, reject: false });
      expect(r.exitCode, r.all).toBe(0);
      expect(r.all).toContain('snapshot tree(s) (tests/__acp__): ok');
    });
    const out = await mkdtemp(join(tmpdir(), 'acp-example-'));
    try {
      const run = await test.step('npx playwright test --repeat-each=3', () =>
        execa('npx', ['playwright', 'test', '--repeat-each=3', '--reporter=list,json'], {
          cwd: dir,
          all: true,
          reject: false,
          env: {
            CI: '1',
            FORCE_COLOR: '0',
            PLAYWRIGHT_JSON_OUTPUT_NAME: join(out, 'report.json'),
            PLAYWRIGHT_HTML_OUTPUT_DIR: join(out, 'html'),
            // Keyless: no upstream, no key.
            MODEL_UPSTREAM_URL: '',
            OPENAI_API_KEY: '',
            ANTHROPIC_API_KEY: '',
            GEMINI_API_KEY: '',
          },
        }));
      await test.info().attach('output.txt', { body: run.all ?? '', contentType: 'text/plain' });
      expect(run.exitCode, run.all).toBe(0);
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as JsonReport;
      expect(report.stats).toMatchObject({ unexpected: 0, flaky: 0 });
      // Nothing skipped but a test marked fixme (a known race) or skipped with its reason (a test one ACP
      // version cannot run: v2 has no session/load), each reason in the spec.
      expect(skippedWithoutReason(report.suites)).toEqual([]);
      // What each example must show, each replayed three times and passing every time, in each project that
      // runs it (one per ACP version; a project may skip it with its reason, and one at least runs it).
      const runs = specRuns(report.suites);
      for (const title of REQUIRED) {
        const found = [...runs.keys()].find((t) => t.startsWith(title));
        expect(found, `examples/${basename(dir)} has a test titled "${title}..."`).toBeDefined();
        const byProject = [...runs.get(found!)!.values()].map((r) => r.join());
        expect(byProject, found).toContain('passed,passed,passed');
        for (const r of byProject) expect(['passed,passed,passed', 'skipped,skipped,skipped']).toContain(r);
      }
      // docs/agents.md's compatibility table states the replay kept in replayed.json: it must be this run's.
      const kept = await execa(
        'node',
        ['scripts/compat-table.mjs', 'verify', dir, join(out, 'report.json')],
        {
          cwd: REPO_ROOT,
          all: true,
          reject: false,
        },
      );
      expect(kept.exitCode, kept.all).toBe(0);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
}

test('examples/claude-agent-acp: re-recorded against its stand-in model, every committed fixture comes back byte for byte', async () => {
  // The key-gated record path, tried keylessly: the emulator serves stand-in.json as the upstream would.
  const dir = join(EXAMPLES, 'claude-agent-acp');
  const scratch = await mkdtemp(join(tmpdir(), 'acp-example-record-'));
  const emulator = await startEmulator({ scriptPath: join(dir, 'stand-in.json') });
  try {
    await cp(dir, scratch, {
      recursive: true,
      filter: (src) => !/\/(node_modules|test-results|playwright-report)$/.test(src),
    });
    await symlink(join(dir, 'node_modules'), join(scratch, 'node_modules'));
    const run = await execa(
      'npx',
      ['playwright', 'test', '--project=claude:record', 'tests/claude.spec.ts', '--reporter=list'],
      {
        cwd: scratch,
        all: true,
        reject: false,
        env: {
          CI: '1',
          FORCE_COLOR: '0',
          MODEL_UPSTREAM_URL: emulator.url,
          ANTHROPIC_API_KEY: 'sk-ant-local-record',
        },
      },
    );
    expect(run.exitCode, run.all).toBe(0);
    const tree = 'tests/__acp__/claude.spec.ts/claude';
    const files = (root: string) =>
      readdirSync(join(root, tree), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(join(root, tree).length + 1))
        .sort();
    expect(files(scratch)).toEqual(files(dir));
    // The stand-in quotes today's date from claude's system prompt, as a real model does, streamed in pieces: a
    // recording made on another day differs in the digits of that date alone, at the same places.
    const sameButDigits = (a: string, b: string) =>
      a.length === b.length &&
      Array.from({ length: a.length }, (_, i) => i).every(
        (i) => a[i] === b[i] || (/\d/.test(a[i]!) && /\d/.test(b[i]!)),
      );
    for (const f of files(dir)) {
      const again = await readFile(join(scratch, tree, f), 'utf8');
      const committed = await readFile(join(dir, tree, f), 'utf8');
      if (!sameButDigits(again, committed)) expect(again, f).toBe(committed);
    }
    // The key went upstream and nowhere else.
    expect(emulator.requests.length).toBeGreaterThan(0);
    for (const f of files(scratch))
      expect(await readFile(join(scratch, tree, f), 'utf8')).not.toContain('sk-ant-local-record');
  } finally {
    await emulator.close();
    await rm(scratch, { recursive: true, force: true });
  }
});

/** The titles (their beginnings) every example's suite has. */
const REQUIRED = [
  'no model',
  'a plain answer',
  'a tool call with a permission request',
  'a multi-turn conversation',
  'a cancelled turn',
  'a changed prompt is refused',
];

/** The titles of skipped tests that carry no fixme annotation nor a skip with its reason. */
function skippedWithoutReason(suites: JsonReport['suites']): string[] {
  return suites.flatMap((suite) => [
    ...(suite.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter(
          (t) =>
            t.results.some((r) => r.status === 'skipped') &&
            !t.annotations?.some((a) => a.type === 'fixme' || (a.type === 'skip' && a.description)),
        )
        .map(() => spec.title),
    ),
    ...skippedWithoutReason(suite.suites ?? []),
  ]);
}

/** Each spec's title -> its project's name -> the statuses of its runs there, from the JSON report. */
function specRuns(
  suites: JsonReport['suites'],
  into = new Map<string, Map<string, string[]>>(),
): Map<string, Map<string, string[]>> {
  for (const suite of suites) {
    for (const spec of suite.specs ?? []) {
      const projects = into.get(spec.title) ?? new Map<string, string[]>();
      for (const t of spec.tests)
        projects.set(t.projectName, [
          ...(projects.get(t.projectName) ?? []),
          ...t.results.map((r) => r.status),
        ]);
      into.set(spec.title, projects);
    }
    specRuns(suite.suites ?? [], into);
  }
  return into;
}
