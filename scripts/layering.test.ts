/**
 * The import rules of the repository, checked over every tracked source file (docs/architecture.md,
 * "Layering"). Like Playwright's DEPS.list: each package names the workspace packages it may import, no
 * relative import leaves its package, runtime code imports no test tooling, inside the harness each folder
 * imports only folders below it, no module imports itself through a cycle (type-only imports count: a type
 * cycle is a knot all the same), and each package.json lists what its code imports. A failure names the file,
 * the import and the rule.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { expect, test } from '@playwright/test';

const ROOT = resolve(import.meta.dirname, '..');

/** The workspace packages each top folder may import by name (its own name is always allowed). */
const PACKAGES: Record<string, readonly string[]> = {
  core: [],
  'session-log': ['@acp-snapshot/core'],
  'replay-plugin': ['@acp-snapshot/core', '@acp-snapshot/session-log'],
  agent: ['@acp-snapshot/core', '@acp-snapshot/session-log', '@acp-snapshot/llm-replay'],
  emulator: ['@acp-snapshot/core'],
  'model-http': ['@acp-snapshot/core'],
  harness: [
    '@acp-snapshot/core',
    '@acp-snapshot/session-log',
    '@acp-snapshot/emulator',
    '@acp-snapshot/model-http',
  ],
  e2e: [
    '@acp-snapshot/playwright',
    '@acp-snapshot/core',
    '@acp-snapshot/session-log',
    '@acp-snapshot/emulator',
    '@acp-snapshot/model-http',
  ],
  scripts: ['*'],
};

/**
 * Packages published as one bundle (their workspace and npm imports inlined at build): their manifest lists
 * what they bundle under devDependencies. The others are installed as they are, so their runtime imports must
 * be dependencies.
 */
const BUNDLED = ['harness'];

/** Test-only packages: runtime code (not a test, not a `testing/` helper) of the bottom packages imports none. */
const TEST_TOOLING = ['@playwright/test', 'fast-check'];
/** Packages any test may use besides its own package's allow-list: the model emulator is a test stand-in. */
const TEST_PACKAGES = ['@acp-snapshot/core', '@acp-snapshot/emulator', '@acp-snapshot/session-log'];
const RUNTIME_WITHOUT_TEST_TOOLING = [
  'core',
  'session-log',
  'replay-plugin',
  'agent',
  'emulator',
  'model-http',
];

/**
 * The harness's folders, lowest first: a folder imports only folders before it. Top-level files count as
 * the layer named here by file name.
 */
const HARNESS_LAYERS = [
  'profile.ts',
  'agents',
  'roots',
  'normalize',
  'scenario',
  'process',
  'driver',
  'compare',
  'coverage',
  'rules',
  'modes',
  'model',
  'conformance',
  'fixtures.ts',
  'matchers.ts',
  'suite',
  'config.ts',
  'cli',
  'reporter',
  'testing',
  'index.ts',
];

interface Import {
  file: string;
  spec: string;
  line: number;
}

/** Tests and test helpers: `*.test.ts`, `*.spec.ts`, files under test/ or testing/, and `*testing.ts` helpers. */
const isTest = (f: string) =>
  /\.(test|spec)\.[mc]?[jt]s$/.test(f) || /\/(test|testing)\//.test(f) || /(^|[/-])testing\.ts$/.test(f);

function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|mts|mjs)$/.test(f) && !f.startsWith('fixtures/') && !f.includes('node_modules/'))
    .filter((f) => f.split('/')[0]! in PACKAGES);
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function manifestOf(top: string): Manifest | undefined {
  const path = resolve(ROOT, top, 'package.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Manifest) : undefined;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(resolve(ROOT, file), 'utf8');
  const out: Import[] = [];
  const re = /(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)(['"])([^'"]+)\1/gm;
  for (const m of text.matchAll(re)) {
    out.push({ file, spec: m[2]!, line: text.slice(0, m.index).split('\n').length });
  }
  return out;
}

/** The package name of a bare specifier (`@scope/name/sub` → `@scope/name`). */
const packageOf = (spec: string) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;

/** The harness layer of a path under harness/src, or undefined outside it. */
function harnessLayer(path: string): string | undefined {
  const rel = relative('harness/src', path);
  if (rel.startsWith('..')) return undefined;
  const [first, ...rest] = rel.split('/');
  return rest.length > 0 ? first : first!.replace(/\.js$/, '.ts');
}

/** The name in a top folder's package.json ('' for a folder that is no package: e2e/, scripts/). */
const packageName = (top: string): string => manifestOf(top)?.name ?? '';

/** The file a relative import names, as a tracked path (`./x.js` → `dir/x.ts`, `./dir` → `dir/index.ts`). */
function resolveRelative(from: string, spec: string, files: ReadonlySet<string>): string | undefined {
  const base = relative(ROOT, resolve(ROOT, dirname(from), spec));
  for (const candidate of [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}/index.ts`,
  ])
    if (files.has(candidate)) return candidate;
  return undefined;
}

/** Every import cycle among the given files (strongly connected components of more than one module, or a self-import). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative over an explicit stack so a deep chain cannot overflow.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfImport) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** The relative-import graph of the tracked source files (tests included: a test in a cycle is a knot too). */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(file)
      .filter((imp) => imp.spec.startsWith('.'))
      .map((imp) => resolveRelative(file, imp.spec, known))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * Where a package's manifest disagrees with its code: a workspace package it may import (PACKAGES) that its
 * package.json does not list or the reverse, and, for a package installed as it is, an npm package its runtime
 * code imports that is no dependency.
 */
function manifestViolations(): string[] {
  const out: string[] = [];
  const runtimeImports = new Map<string, Map<string, Import>>();
  for (const file of sourceFiles()) {
    if (isTest(file)) continue;
    const top = file.split('/')[0]!;
    for (const imp of importsOf(file)) {
      if (imp.spec.startsWith('.') || imp.spec.startsWith('node:')) continue;
      const pkg = packageOf(imp.spec);
      const seen = runtimeImports.get(top) ?? new Map<string, Import>();
      if (!seen.has(pkg)) seen.set(pkg, imp);
      runtimeImports.set(top, seen);
    }
  }
  for (const top of Object.keys(PACKAGES)) {
    const manifest = manifestOf(top);
    if (!manifest) continue;
    const bundled = BUNDLED.includes(top);
    const runtime = { ...manifest.dependencies, ...manifest.peerDependencies };
    const listed = bundled ? { ...runtime, ...manifest.devDependencies } : runtime;
    const field = bundled ? 'dependencies or devDependencies (bundled)' : 'dependencies';
    const workspaceListed = Object.keys({ ...listed }).filter((d) => d.startsWith('@acp-snapshot/'));
    for (const dep of PACKAGES[top]!)
      if (!workspaceListed.includes(dep))
        out.push(`${top}/package.json: ${top}/ may import ${dep} (PACKAGES) but its ${field} do not list it`);
    for (const dep of workspaceListed)
      if (!PACKAGES[top]!.includes(dep))
        out.push(
          `${top}/package.json lists ${dep}, which ${top}/ may not import: drop it or allow it in PACKAGES`,
        );
    for (const [pkg, imp] of runtimeImports.get(top) ?? [])
      if (pkg !== manifest.name && !(pkg in listed))
        out.push(`${imp.file}:${imp.line}: '${imp.spec}': ${pkg} is not in ${top}/package.json's ${field}`);
  }
  return out;
}

function violations(): string[] {
  const out: string[] = [];
  for (const file of sourceFiles()) {
    const top = file.split('/')[0]!;
    const allowed = PACKAGES[top]!;
    for (const imp of importsOf(file)) {
      const where = `${imp.file}:${imp.line}: '${imp.spec}'`;
      if (imp.spec.startsWith('.')) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), imp.spec));
        if (target.split('/')[0] !== top) {
          out.push(`${where} reaches into ${target.split('/')[0]}/: import it by its package name`);
          continue;
        }
        const from = harnessLayer(file);
        const to = harnessLayer(target);
        if (from && to && from !== to && !isTest(file)) {
          const a = HARNESS_LAYERS.indexOf(from);
          const b = HARNESS_LAYERS.indexOf(to);
          if (a < 0 || b < 0)
            out.push(`${where}: harness layer ${a < 0 ? from : to} is not in HARNESS_LAYERS`);
          else if (b > a) out.push(`${where}: harness/src/${from} may not import the higher layer ${to}`);
        }
        continue;
      }
      if (imp.spec.startsWith('node:')) continue;
      const pkg = packageOf(imp.spec);
      if (pkg.startsWith('@acp-snapshot/')) {
        const own = packageName(top);
        const testOnly = isTest(file) && TEST_PACKAGES.includes(pkg);
        if (pkg !== own && !testOnly && !allowed.includes('*') && !allowed.includes(pkg))
          out.push(`${where}: ${top}/ may not depend on ${pkg} (allowed: ${allowed.join(', ') || 'none'})`);
      } else if (TEST_TOOLING.includes(pkg) && RUNTIME_WITHOUT_TEST_TOOLING.includes(top) && !isTest(file)) {
        out.push(
          `${where}: runtime code of ${top}/ imports test tooling; move it under a testing/ folder or a test`,
        );
      }
    }
  }
  return out;
}

test('every import follows the layering rules', () => {
  expect(violations()).toEqual([]);
});

test('no import cycles, type-only imports included', () => {
  const cycles = importCycles(importGraph()).map((c) => `an import cycle among ${c.join(', ')}`);
  expect(cycles).toEqual([]);
});

test('each package.json lists the workspace packages its folder may import and the npm packages it imports', () => {
  expect(manifestViolations()).toEqual([]);
});

test('the cycle check finds a cycle of two, of three, a self-import, and nothing in a chain', () => {
  const g = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
  expect(importCycles(g({ a: ['b'], b: ['a'], c: ['a'] }))).toEqual([['a', 'b']]);
  expect(importCycles(g({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual([['a', 'b', 'c']]);
  expect(importCycles(g({ a: ['a'] }))).toEqual([['a']]);
  expect(importCycles(g({ a: ['b'], b: ['c'], c: [] }))).toEqual([]);
});

test('the check sees what it checks: the harness is found and its layers are all listed', () => {
  const files = sourceFiles().filter((f) => f.startsWith('harness/src/') && !isTest(f));
  expect(files.length).toBeGreaterThan(50);
  const layers = new Set(files.map(harnessLayer));
  for (const layer of layers) expect(HARNESS_LAYERS, `harness/src/${layer}`).toContain(layer);
});
