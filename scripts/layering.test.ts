/**
 * The import rules of the repository, checked over every tracked source file (docs/architecture.md,
 * "Layering"). Like Playwright's DEPS.list: each package names the workspace packages it may import, no
 * relative import leaves its package, runtime code imports no test tooling, inside a package each folder
 * imports only what its DEPS.list names (scripts/folder-rules.ts), no module imports itself through a cycle
 * (type-only imports count: a type cycle is a knot all the same), and each package.json lists what its code
 * imports. A failure names the file, the import and the rule.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  declaredGraph,
  entryFor,
  type FolderRules,
  folderRuleViolation,
  parseFolderRules,
  RULES_FILE,
} from './folder-rules.js';
import { importCycles } from './import-cycles.js';
import { isTest, trackedFiles, trackedSources } from './source-files.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * The workspace packages each top folder may import by name (its own name is always allowed). A new package is
 * one line here (and its name in the lines of the folders that import it); its package.json must agree.
 */
const PACKAGES: Record<string, readonly string[]> = {
  core: [],
  'session-log': ['@acp-snapshot/core'],
  'llm-replay': ['@acp-snapshot/core', '@acp-snapshot/session-log'],
  agent: ['@acp-snapshot/core', '@acp-snapshot/session-log', '@acp-snapshot/llm-replay'],
  emulator: ['@acp-snapshot/core'],
  'model-http': ['@acp-snapshot/core'],
  conformance: ['@acp-snapshot/core', '@acp-snapshot/emulator'],
  playwright: [
    '@acp-snapshot/core',
    '@acp-snapshot/session-log',
    '@acp-snapshot/emulator',
    '@acp-snapshot/model-http',
    '@acp-snapshot/conformance',
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
const BUNDLED = ['playwright'];

/** Test-only packages: runtime code (not a test, not a `testing/` helper) of the bottom packages imports none. */
const TEST_TOOLING = ['@playwright/test', 'fast-check'];
/** Packages any test may use besides its own package's allow-list: the model emulator is a test stand-in. */
const TEST_PACKAGES = ['@acp-snapshot/core', '@acp-snapshot/emulator', '@acp-snapshot/session-log'];
/** Packages whose runtime code may import test tooling (the harness is a Playwright package); no other may. */
const RUNTIME_WITH_TEST_TOOLING = ['playwright'];

interface Import {
  file: string;
  spec: string;
  line: number;
}

function sourceFiles(): string[] {
  return trackedSources(ROOT).filter((f) => f.split('/')[0]! in PACKAGES);
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

/**
 * The folders that say what they may import: each folder holding runtime code of a package whose runtime code
 * spans more than one folder (a one-folder package has nothing to order). e2e/ and scripts/ are no packages.
 */
function foldersNeedingRules(): Set<string> {
  const byPackage = new Map<string, Set<string>>();
  for (const file of sourceFiles()) {
    const top = file.split('/')[0]!;
    if (isTest(file) || !manifestOf(top)) continue;
    byPackage.set(top, (byPackage.get(top) ?? new Set()).add(dirname(file)));
  }
  return new Set([...byPackage.values()].filter((folders) => folders.size > 1).flatMap((f) => [...f]));
}

/** Every DEPS.list of the checked top folders, parsed, by folder. */
function folderRules(): Map<string, FolderRules> {
  const out = new Map<string, FolderRules>();
  for (const file of trackedFiles(ROOT))
    if (file.endsWith(`/${RULES_FILE}`) && file.split('/')[0]! in PACKAGES)
      out.set(dirname(file), parseFolderRules(file, readFileSync(resolve(ROOT, file), 'utf8')));
  return out;
}

/** Where the DEPS.list files disagree with the tree: a folder without one, one without runtime code, a stale entry. */
function folderRuleProblems(): string[] {
  const out: string[] = [];
  const needing = foldersNeedingRules();
  const rules = folderRules();
  const files = new Set(sourceFiles());
  for (const folder of [...needing].sort()) {
    if (rules.has(folder)) continue;
    const entries = new Set<string>();
    for (const file of files)
      if (dirname(file) === folder && !isTest(file))
        for (const imp of importsOf(file).filter((i) => i.spec.startsWith('.'))) {
          const target =
            resolveRelative(file, imp.spec, files) ?? relative(ROOT, resolve(ROOT, folder, imp.spec));
          if (dirname(target) !== folder) entries.add(entryFor(folder, target));
        }
    out.push(
      `${folder}/ holds runtime code of a package with several folders but no ${RULES_FILE}: create ` +
        `${folder}/${RULES_FILE} naming what it may import (today it imports ${[...entries].sort().join(' ') || 'no other folder'})`,
    );
  }
  for (const [folder, r] of rules) {
    if (!needing.has(folder))
      out.push(`${r.file}: ${folder}/ holds no runtime code of a package with several folders; delete it`);
    for (const e of [...r.all, ...[...r.byFile.values()].flat()])
      if (!existsSync(resolve(ROOT, e.target)))
        out.push(`${r.file}:${e.line}: ${e.text} names ${e.target}, which does not exist; drop the line`);
    for (const [file, line] of r.sections)
      if (!existsSync(resolve(ROOT, file)))
        out.push(`${r.file}:${line}: the section of ${file}, which does not exist; drop the section`);
  }
  return out;
}

function violations(): string[] {
  const out: string[] = [];
  const rules = folderRules();
  const known = new Set(sourceFiles());
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
        const own = rules.get(dirname(file));
        if (own && !isTest(file)) {
          const broken = folderRuleViolation(own, imp, resolveRelative(file, imp.spec, known) ?? target);
          if (broken) out.push(broken);
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
      } else if (
        TEST_TOOLING.includes(pkg) &&
        !RUNTIME_WITH_TEST_TOOLING.includes(top) &&
        manifestOf(top) &&
        !isTest(file)
      ) {
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

test('each folder of a package with folders has a DEPS.list, and each names what exists', () => {
  expect(folderRuleProblems()).toEqual([]);
});

test('the folder rules put no folder below itself', () => {
  const cycles = importCycles(declaredGraph([...folderRules().values()])).map(
    (c) => `the ${RULES_FILE} files put each of ${c.join(', ')} below the others; take one entry out`,
  );
  expect(cycles).toEqual([]);
});

test('the check sees what it checks: the harness is found and its folders have rules', () => {
  const files = sourceFiles().filter((f) => f.startsWith('playwright/src/') && !isTest(f));
  expect(files.length).toBeGreaterThan(50);
  const needing = foldersNeedingRules();
  expect(needing).toContain('playwright/src/driver');
  expect(needing).not.toContain('emulator/src');
  expect(folderRules().get('playwright/src/driver')?.all.length).toBeGreaterThan(0);
});
