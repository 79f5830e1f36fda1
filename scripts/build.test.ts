// The harness bundles as a user's Playwright loads them: they import, they need nothing but Playwright and Node's
// own modules, and their source maps are beside them without being linked (Playwright parses a linked map at
// every worker start: decision 0031).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

const root = join(import.meta.dirname, '..');
const LOADED_BY_PLAYWRIGHT = ['playwright/dist/index.js', 'playwright/dist/coverage/acp-coverage.spec.js'];

/** The bare specifiers a bundle imports (static and dynamic), without node: builtins. */
function packagesImported(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g)].map(
    (m) => m[1]!,
  );
  // A package name, maybe with a subpath (the pattern also meets `from "` inside the bundled jsdiff's strings).
  const packageName = /^(@[\w.-]+\/)?[\w.-]+(\/[\w./-]+)?$/;
  return [...new Set(specifiers.filter((s) => packageName.test(s) && !s.startsWith('node:')))].sort();
}

for (const file of LOADED_BY_PLAYWRIGHT) {
  test(`${file} imports only Playwright, and keeps its source map beside it, unlinked`, () => {
    expect(packagesImported(file).filter((p) => p !== '@playwright/test')).toEqual([]);
    expect(existsSync(join(root, `${file}.map`)), `${file}.map`).toBe(true);
    expect(readFileSync(join(root, file), 'utf8')).not.toContain('sourceMappingURL');
  });
}

test('the harness bundle imports in a plain Node process and exports its API', async () => {
  const r = await execa(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(join(root, 'playwright/dist/index.js'))}); console.log(Object.keys(m).sort().join(' '));`,
    ],
    { reject: false, all: true },
  );
  expect(r.exitCode, r.all).toBe(0);
  expect(r.stdout.split(' ')).toEqual(
    expect.arrayContaining(['defineAcpConfig', 'expect', 'scenarioProjects', 'test']),
  );
});
