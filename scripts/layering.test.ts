/**
 * The import rules of the repository, checked over every tracked source file (docs/architecture.md,
 * "Layering"). Like Playwright's DEPS.list: each package names the workspace packages it may import, no
 * relative import leaves its package, runtime code imports no test tooling, and inside the harness each
 * folder imports only folders below it. A failure names the file, the import and the rule.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { expect, test } from '@playwright/test';

const ROOT = resolve(import.meta.dirname, '..');

/** The workspace packages each top folder may import by name (its own name is always allowed). */
const PACKAGES: Record<string, readonly string[]> = {
  'session-log': [],
  'replay-plugin': ['@acp-snapshot/session-log'],
  agent: ['@acp-snapshot/session-log', '@acp-snapshot/llm-replay'],
  emulator: ['@acp-snapshot/session-log'],
  'model-http': ['@acp-snapshot/session-log'],
  harness: ['@acp-snapshot/session-log', '@acp-snapshot/emulator', '@acp-snapshot/model-http'],
  e2e: [
    '@acp-snapshot/playwright',
    '@acp-snapshot/session-log',
    '@acp-snapshot/emulator',
    '@acp-snapshot/model-http',
  ],
  scripts: ['*'],
};

/** Test-only packages: runtime code (not a test, not a `testing/` helper) of the bottom packages imports none. */
const TEST_TOOLING = ['@playwright/test', 'fast-check'];
/** Packages any test may use besides its own package's allow-list: the model emulator is a test stand-in. */
const TEST_PACKAGES = ['@acp-snapshot/emulator', '@acp-snapshot/session-log'];
const RUNTIME_WITHOUT_TEST_TOOLING = ['session-log', 'replay-plugin', 'agent', 'emulator', 'model-http'];

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
function packageName(top: string): string {
  try {
    return (JSON.parse(readFileSync(resolve(ROOT, top, 'package.json'), 'utf8')) as { name: string }).name;
  } catch {
    return '';
  }
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

test('the check sees what it checks: the harness is found and its layers are all listed', () => {
  const files = sourceFiles().filter((f) => f.startsWith('harness/src/') && !isTest(f));
  expect(files.length).toBeGreaterThan(50);
  const layers = new Set(files.map(harnessLayer));
  for (const layer of layers) expect(HARNESS_LAYERS, `harness/src/${layer}`).toContain(layer);
});
