// docs/agents.md's compatibility table is what scripts/compat-table.mjs makes of the example projects: the
// lockfile's version, the profile's proven versions, the recorded tests and the kept replay, which goes stale
// (and says so) when the lockfile moves on.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
// @ts-expect-error: a plain .mjs script without type declarations
import { AGENTS_MD, compatTable, END, START, trimReplay, verifyReplay } from './compat-table.mjs';
// @ts-expect-error: a plain .mjs script without type declarations
import { withSection } from './generated-section.mjs';

test("docs/agents.md's compatibility table is generated from examples/*", () => {
  const text = readFileSync(AGENTS_MD, 'utf8');
  const current = text.slice(text.indexOf(START), text.indexOf(END) + END.length);
  expect(current, 'docs/agents.md: the compatibility table is stale; rewrite it: npm run compat').toBe(
    withSection(`${START}${END}`, { start: START, end: END, file: 'docs/agents.md' }, compatTable()),
  );
});

/**
 * A Playwright JSON report of `--repeat-each=3`: one spec per repeat, a fixme test skipped each time, and the
 * fixture's `acp protocol` line on the tests that asked for v2.
 */
function report(
  outcomes: Record<string, string[]>,
  fixme: string[] = [],
  protocol: Record<string, string> = {},
) {
  const specs = Object.entries(outcomes).flatMap(([title, statuses]) =>
    statuses.map((status) => ({
      title,
      file: 'pi.spec.ts',
      tests: [
        {
          annotations: [
            ...(fixme.includes(title) ? [{ type: 'fixme', description: 'a race' }] : []),
            ...(protocol[title] ? [{ type: 'acp protocol', description: protocol[title] }] : []),
          ],
          results: [{ status }],
        },
      ],
    })),
  );
  const coverage = {
    title: 'ACP protocol coverage',
    file: '../node_modules/x/acp-coverage.spec.ts',
    tests: [{ results: [{ status: 'passed' }] }],
  };
  return { suites: [{ specs: [], suites: [{ specs }] }, { specs: [coverage] }] };
}

test('an example becomes a row: its lockfile version, profile, recorded tests, replay and quirk tests', () => {
  const root = mkdtempSync(join(tmpdir(), 'compat-'));
  try {
    const profiles = join(root, 'agents');
    mkdirSync(profiles);
    writeFileSync(
      join(profiles, 'pi.ts'),
      "export const piAgent = builtinAgent({\n  name: 'piAgent',\n  pkg: '@pi/acp',\n  bin: 'pi',\n  proven: ['1.0.0', '1.1.0'],\n});\n",
    );
    const dir = join(root, 'examples/pi');
    mkdirSync(join(dir, 'tests/__acp__/pi.spec.ts/pi/a-plain-answer'), { recursive: true });
    mkdirSync(join(dir, 'tests/__acp__/pi.spec.ts/pi/quirk-ids'), { recursive: true });
    mkdirSync(join(dir, 'tests/__acp__/pi.spec.ts/pi/sidecars'), { recursive: true });
    // The committed wires: what the agent answered in initialize is the version a replay of the test speaks.
    const answered = (v: number) =>
      `{"jsonrpc":"2.0","id":"{{id:1}}","result":{"protocolVersion":${v}}}\n{}\n`;
    writeFileSync(join(dir, 'tests/__acp__/pi.spec.ts/pi/a-plain-answer/stdout.jsonl'), answered(2));
    writeFileSync(join(dir, 'tests/__acp__/pi.spec.ts/pi/quirk-ids/stdout.jsonl'), answered(1));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ description: 'acp-snapshot on pi (OpenAI Responses): x' }),
    );
    const lock = (version: string) =>
      writeFileSync(
        join(dir, 'package-lock.json'),
        JSON.stringify({ packages: { 'node_modules/@pi/acp': { version } } }),
      );
    lock('1.1.0');
    writeFileSync(
      join(dir, 'playwright.config.ts'),
      'export default defineAcpConfig({ agents: { pi: agents.piAgent() } });',
    );
    const examples = join(root, 'examples');
    const row = () => (compatTable(examples, profiles) as string).split('\n')[2];

    expect(row()).toBe(
      '| `examples/pi` | `@pi/acp` | 1.1.0 | `agents.piAgent()`, proven on 1.0.0, 1.1.0 | OpenAI Responses | 2 | not replayed: `npm run compat -- replay pi` | not replayed | none |',
    );
    const outcomes = {
      'a plain answer': ['passed', 'passed', 'passed'],
      'quirk: ids | random': ['passed', 'failed', 'passed'],
      'fault: a 429': ['skipped', 'skipped', 'skipped'],
    };
    const run = report(outcomes, ['fault: a 429']);
    const kept = trimReplay(run, { pkg: '@pi/acp', version: '1.1.0', date: '2026-12-02', node: '22.23.5' });
    // One entry per test, its repeats together; the package's coverage teardown is not the example's test.
    expect(kept.tests).toEqual([
      { file: 'pi.spec.ts', title: 'a plain answer', statuses: ['passed', 'passed', 'passed'] },
      {
        file: 'pi.spec.ts',
        title: 'fault: a 429',
        statuses: ['skipped', 'skipped', 'skipped'],
        fixme: 'a race',
      },
      { file: 'pi.spec.ts', title: 'quirk: ids | random', statuses: ['passed', 'failed', 'passed'] },
    ]);
    writeFileSync(join(dir, 'replayed.json'), JSON.stringify(kept));
    // The examples' replay in npm test checks its run against the kept one.
    expect(verifyReplay(dir, run, profiles)).toEqual([]);
    const later = report({ ...outcomes, 'quirk: ids | random': ['passed', 'passed', 'passed'] }, [
      'fault: a 429',
    ]);
    expect(verifyReplay(dir, later, profiles)).toEqual([
      'examples/pi/replayed.json is not what this replay gives (this run: pi.spec.ts "quirk: ids | random" [passed, passed, passed]; ' +
        'kept: pi.spec.ts "quirk: ids | random" [passed, failed, passed]); keep this run\'s: npm run compat -- replay pi',
    ]);
    expect(row()).toBe(
      '| `examples/pi` | `@pi/acp` | 1.1.0 | `agents.piAgent()`, proven on 1.0.0, 1.1.0 | OpenAI Responses | 2 | 1/3 green ×3, 1 fixme, **1 red**: quirk: ids \\| random (2026-12-02, Node 22.23.5) | v2 ×1 | ids \\| random (and 1 provider-fault tests) |',
    );
    // The versions replayed count green tests only; a test that asked for v2 and was answered 1 is named apart.
    const asked = report(
      { ...outcomes, 'quirk: ids | random': ['passed', 'passed', 'passed'] },
      ['fault: a 429'],
      {
        'quirk: ids | random': "asked for ACP v2 ('highest'); pi 1.1.0 answered 1: this run is ACP v1",
      },
    );
    const keptAsked = trimReplay(asked, {
      pkg: '@pi/acp',
      version: '1.1.0',
      date: '2026-12-02',
      node: '22.23.5',
    });
    expect(keptAsked.tests[2].protocol).toBe(
      "asked for ACP v2 ('highest'); pi 1.1.0 answered 1: this run is ACP v1",
    );
    writeFileSync(join(dir, 'replayed.json'), JSON.stringify(keptAsked));
    expect(row()).toContain('| v1 ×1, v2 ×1 (1 asked for v2, the agent answered 1) |');
    writeFileSync(join(dir, 'replayed.json'), JSON.stringify(kept));
    // The lockfile moved on: the kept replay is of another version, and the profile was not proven on it.
    lock('1.2.0');
    expect(row()).toBe(
      '| `examples/pi` | `@pi/acp` | 1.2.0 | `agents.piAgent()`, proven on 1.0.0, 1.1.0 (**not 1.2.0**) | OpenAI Responses | 2 | stale (replayed 1.1.0): `npm run compat -- replay pi` | v2 ×1 | ids \\| random (and 1 provider-fault tests) |',
    );
    expect(verifyReplay(dir, run, profiles)).toEqual([
      "examples/pi/replayed.json is of @pi/acp 1.1.0; the lockfile installs 1.2.0; keep this run's: npm run compat -- replay pi",
    ]);
    writeFileSync(join(dir, 'playwright.config.ts'), 'export default defineConfig({});');
    expect(() => compatTable(examples, profiles)).toThrow(
      /examples\/pi\/playwright\.config\.ts: no built-in profile \(agents\.NAME\(\)\) found/,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('an example run on ACP v1 and v2 keeps each test once per project, with the version of each', () => {
  const test2 = (projectName: string, status: string, skip?: string) => ({
    projectName,
    annotations: skip ? [{ type: 'skip', description: skip }] : [],
    results: [{ status }],
  });
  const run = {
    config: {
      projects: [
        { name: 'claude', metadata: { protocolVersion: 1 } },
        { name: 'claude-v2', metadata: { protocolVersion: 2 } },
        { name: 'acp-coverage', metadata: {} },
      ],
    },
    suites: [
      {
        specs: [
          {
            title: 'a plain answer',
            file: 'c.spec.ts',
            tests: [test2('claude', 'passed'), test2('claude-v2', 'passed')],
          },
          {
            title: 'no model',
            file: 'c.spec.ts',
            tests: [test2('claude', 'passed'), test2('claude-v2', 'skipped', 'ACP v2 has no session/load')],
          },
        ],
      },
    ],
  };
  const kept = trimReplay(run, { pkg: 'p', version: '1', date: '2026-12-05', node: '22' });
  expect(kept.protocols).toEqual({ claude: 1, 'claude-v2': 2 });
  expect(kept.tests).toEqual([
    { file: 'c.spec.ts', title: 'a plain answer', project: 'claude', statuses: ['passed'] },
    { file: 'c.spec.ts', title: 'a plain answer', project: 'claude-v2', statuses: ['passed'] },
    { file: 'c.spec.ts', title: 'no model', project: 'claude', statuses: ['passed'] },
    {
      file: 'c.spec.ts',
      title: 'no model',
      project: 'claude-v2',
      statuses: ['skipped'],
      skip: 'ACP v2 has no session/load',
    },
  ]);
});

test('a file without the markers is refused, naming the file and the markers', () => {
  expect(() => withSection('no markers', { start: START, end: END, file: 'docs/agents.md' }, 'x')).toThrow(
    /^docs\/agents\.md: the markers <!-- compat:start .* and <!-- compat:end --> are missing/,
  );
});

test('a keyless replay leaves the :record twin idle: one project ran, so no test names its project', () => {
  const run = {
    config: {
      projects: [
        { name: 'qwen', metadata: { protocolVersion: 1 } },
        { name: 'qwen:record', metadata: { protocolVersion: 1 } },
      ],
    },
    suites: [
      {
        specs: [
          {
            title: 'a plain answer',
            file: 'q.spec.ts',
            tests: [{ projectName: 'qwen', annotations: [], results: [{ status: 'passed' }] }],
          },
        ],
      },
    ],
  };
  const kept = trimReplay(run, { pkg: 'p', version: '1', date: '2026-12-05', node: '22' });
  expect(kept.protocols).toEqual({ qwen: 1 });
  expect(kept.tests).toEqual([{ file: 'q.spec.ts', title: 'a plain answer', statuses: ['passed'] }]);
});
