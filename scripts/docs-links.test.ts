// Every doc reference and every command the docs show exists (scripts/docs-links.ts); each check fails on a
// planted broken one.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineAcpConfig } from '@acp-snapshot/playwright';
import { expect, test } from '@playwright/test';
import {
  type CommandSources,
  citationProblems,
  commandProblems,
  diskRepo,
  formatProblems,
  linkProblems,
  type Repo,
} from './docs-links.js';

const ROOT = join(import.meta.dirname, '..');
const repo = diskRepo(ROOT);

/** The files git tracks or would track (new docs included), minus recordings and build output. */
function repoFiles(): string[] {
  return (
    execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => f && repo.read(f) !== undefined)
      .filter((f) => !/(^|\/)(node_modules|dist|__acp__)\/|^fixtures\/|^docs\/conformance\//.test(f))
      // The checker and this test name broken references on purpose.
      .filter((f) => !/^scripts\/docs-links(\.test)?\.ts$/.test(f))
  );
}

const markdownFiles = () => repoFiles().filter((f) => f.endsWith('.md'));
const codeFiles = () => repoFiles().filter((f) => /\.(ts|mts|js|mjs|cjs)$/.test(f));

/** A markdown text with its links' targets blanked, so a citation scan does not read them twice. */
const withoutLinkTargets = (md: string) =>
  md.replace(/\]\(([^)\s]*)\)/g, (_, href: string) => `](${' '.repeat(href.length)})`);

/** The CLI's commands (from the usage it prints), the repository's projects and those an agent config makes. */
async function commandSources(): Promise<CommandSources> {
  const usage = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'playwright/src/cli/main.ts'], { cwd: ROOT });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('error', reject);
    child.on('close', () => resolve(text));
  });
  // The repository's config read as data, for its project names (a path, not an import of its code).
  const config = (await import(pathToFileURL(join(ROOT, 'playwright.config.ts')).href)).default as {
    projects?: { name?: string }[];
  };
  const agentProjects = defineAcpConfig({
    agents: { AGENT: { command: ['agent'] } },
    model: { kind: 'http' },
    record: { upstream: { baseUrlEnv: 'URL', apiKeyEnv: 'KEY' } },
  }).projects!.map((p) => p.name ?? '');
  return {
    projects: new Set((config.projects ?? []).map((p) => p.name ?? '')),
    agentProjectSuffixes: new Set(
      agentProjects.filter((n) => n.startsWith('AGENT:')).map((n) => n.slice('AGENT:'.length)),
    ),
    cliCommands: new Set([...usage.matchAll(/^\s+acp-snapshot ([\w-]+)/gm)].map((m) => m[1]!)),
  };
}

test('every link and section citation in the docs and the code resolves to an existing file and heading', () => {
  const problems = [
    ...markdownFiles().flatMap((f) => {
      const text = repo.read(f)!;
      return [...linkProblems(repo, f, text), ...citationProblems(repo, f, withoutLinkTargets(text))];
    }),
    ...codeFiles().flatMap((f) => citationProblems(repo, f, repo.read(f)!)),
  ];
  expect(formatProblems(problems)).toEqual([]);
});

test('every command the docs show in a shell block exists in package.json, the CLI usage or the Playwright projects', async () => {
  const sources = await commandSources();
  expect(sources.cliCommands.has('review'), 'the CLI usage was read').toBe(true);
  expect(sources.projects.has('unit'), 'the Playwright projects were read').toBe(true);
  const problems = markdownFiles().flatMap((f) => commandProblems(repo, f, repo.read(f)!, sources));
  expect(formatProblems(problems)).toEqual([]);
});

/** A repository of a few files, for the planted references. */
function fakeRepo(files: Record<string, string>): Repo {
  return {
    root: '/fake',
    read: (path) =>
      files[path] ?? (Object.keys(files).some((f) => f.startsWith(`${path}/`)) ? '' : undefined),
  };
}

const planted = fakeRepo({
  'README.md': '# acp-snapshot\n\n## Quick start\n',
  'docs/scenarios.md': '# The scenario corpus\n\n## Adding a scenario\n\n## The harness <-> agent contract\n',
  'session-log/README.md': '# session-log\n\n## Storage rows\n',
  'playwright/README.md': '# harness\n\n### Record modes\n',
  'package.json': JSON.stringify({ scripts: { test: 'x', record: 'y' } }),
  'examples/qwen/package.json': JSON.stringify({ scripts: { record: 'z' } }),
});

test('a broken link or section citation is named with its file, line and what is missing', () => {
  const md = [
    '# Doc',
    'See [adding](scenarios.md#adding-a-scenario) and [the contract](scenarios.md#the-harness---agent-contract).',
    'Broken: [gone](scenarios.md#no-such-section), [missing](nope.md) and [self](#doc), [self](#nope).',
  ].join('\n');
  expect(formatProblems(linkProblems(planted, 'docs/x.md', md))).toEqual([
    'docs/x.md:3: link scenarios.md#no-such-section: docs/scenarios.md has no heading with the anchor #no-such-section',
    'docs/x.md:3: link nope.md: docs/nope.md does not exist',
    'docs/x.md:3: link #nope: docs/x.md has no heading with the anchor #nope',
  ]);
  const code = [
    '// see docs/scenarios.md, "Adding a scenario" and docs/scenarios.md#adding-a-scenario',
    "const a = 'see README \"Storage rows\"'; // session-log's own README",
    'const b = \'the harness README, "Record modes"\';',
    '// broken: docs/scenarios.md, "Adding scenarios" and docs/scenarios.md#recording',
    'const c = \'see README "Canonical form"\';',
    "const d = 'see docs/gone.md#x';",
    '/* see README',
    ' * "Canonical form" and the harness README,',
    ' * "Provider faults"; docs/missing.md and playwright/README.md and /home/u/x/README.md */',
    "const e = ['see', readmeSection('Record modes'), 'not', readmeSection(\"Gone section\")];",
  ].join('\n');
  expect(formatProblems(citationProblems(planted, 'session-log/src/x.ts', code))).toEqual([
    'session-log/src/x.ts:4: docs/scenarios.md#recording: docs/scenarios.md has no heading with the anchor #recording',
    'session-log/src/x.ts:4: docs/scenarios.md, "Adding scenarios": docs/scenarios.md has no heading "Adding scenarios" (its headings: "The scenario corpus", "Adding a scenario", "The harness <-> agent contract")',
    'session-log/src/x.ts:5: README "Canonical form": session-log/README.md has no heading "Canonical form" (its headings: "session-log", "Storage rows")',
    'session-log/src/x.ts:6: docs/gone.md#x: docs/gone.md does not exist',
    'session-log/src/x.ts:7: README "Canonical form": session-log/README.md has no heading "Canonical form" (its headings: "session-log", "Storage rows")',
    'session-log/src/x.ts:8: the harness README, "Provider faults": playwright/README.md has no heading "Provider faults" (its headings: "harness", "Record modes")',
    'session-log/src/x.ts:9: docs/missing.md: docs/missing.md does not exist',
    'session-log/src/x.ts:10: readmeSection("Gone section"): playwright/README.md has no heading "Gone section" (its headings: "harness", "Record modes")',
  ]);
});

test('a command a shell block shows that does not exist is named with its file and line', () => {
  const sources: CommandSources = {
    projects: new Set(['unit', 'replay']),
    agentProjectSuffixes: new Set(['record']),
    cliCommands: new Set(['review', 'init']),
  };
  const md = [
    '# Doc',
    '```sh',
    'npm test && npm run record -- NAME    # fine',
    'KEY=1 npm run recrod -- NAME',
    'npx acp-snapshot review && npx acp-snapshot reveiw',
    'npx playwright test --project=unit --project=replay',
    'npx playwright test --project=unti -g x',
    'cd examples/qwen && npm run record && npm run check',
    '# in your project',
    'npm run anything && npx playwright test --project=qwen:record --project=qwen:recrod',
    '```',
  ].join('\n');
  expect(formatProblems(commandProblems(planted, 'docs/x.md', md, sources))).toEqual([
    'docs/x.md:4: `npm run recrod -- NAME`: package.json has no script "recrod" (it has: test, record)',
    'docs/x.md:5: `npx acp-snapshot reveiw`: the acp-snapshot CLI has no command "reveiw" (its usage lists: review, init)',
    'docs/x.md:7: `npx playwright test --project=unti -g x`: playwright.config.ts has no project "unti" (it has: unit, replay)',
    'docs/x.md:8: `npm run check`: examples/qwen/package.json has no script "check" (it has: record)',
    'docs/x.md:10: `npx playwright test --project=qwen:record --project=qwen:recrod`: defineAcpConfig() makes no "AGENT:recrod" project (its agent projects: AGENT, AGENT:record)',
  ]);
});
