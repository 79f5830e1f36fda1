import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { exportTable, formatTable, importedNames } from './exports.js';

test('every way a name is imported from a package counts: named, aliased, type-only, re-exported, dynamic, JSDoc', () => {
  const text = [
    "import { a, b as c, type T } from '@x/p';",
    "import type { U } from '@x/p/testing';",
    "export { d } from '@x/p';",
    "const { e, f: g } = await import('@x/p');",
    "/** @type {import('@x/p').V} */",
    "import { local } from './local.js';",
  ].join('\n');
  const names = importedNames('f.ts', text);
  expect([...(names.get('@x/p') ?? [])].sort()).toEqual(['T', 'V', 'a', 'b', 'd', 'e', 'f']);
  expect([...(names.get('@x/p/testing') ?? [])]).toEqual(['U']);
});

test('the table counts what each entry exports and what another folder imports, not the package itself', () => {
  const root = mkdtempSync(join(tmpdir(), 'exports-'));
  try {
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('package.json', JSON.stringify({ workspaces: ['lib', 'app'] }));
    write('tsconfig.json', '{}');
    write(
      'lib/package.json',
      JSON.stringify({ name: '@t/lib', exports: { '.': { types: './src/index.ts' } } }),
    );
    write(
      'lib/src/index.ts',
      "export { used, unused } from './impl.js';\nexport type { Shape } from './impl.js';\n",
    );
    write(
      'lib/src/impl.ts',
      'export const used = 1;\nexport const unused = 2;\nexport interface Shape { a: 1 }\n',
    );
    // The package's own test importing by name does not make a name used elsewhere.
    write('lib/src/impl.test.ts', "import { unused } from '@t/lib';\n");
    write('app/package.json', JSON.stringify({ name: '@t/app' }));
    write('app/src/main.ts', "import { type Shape, used } from '@t/lib';\n");
    execFileSync('git', ['init', '-q'], { cwd: root });
    const rows = exportTable(root);
    expect(rows).toEqual([{ spec: '@t/lib', exported: 3, used: 2, unused: ['unused'] }]);
    expect(formatTable(rows)).toMatch(/^entry\s+exported\s+used elsewhere\n@t\/lib\s+3\s+2$/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** The package users import: its names are the API, used or not by this repository. */
const PUBLIC_ENTRY = '@acp-snapshot/playwright';

test('no workspace entry exports a name that nothing outside its package imports (the public entry excepted)', () => {
  const unused = exportTable()
    .filter((r) => r.spec !== PUBLIC_ENTRY && r.unused.length > 0)
    .map((r) => `${r.spec}: ${r.unused.join(', ')}`);
  expect(
    unused,
    'remove these names from the entry (its own tests import the module by a relative path); ' +
      'list them with: node --import tsx scripts/exports.ts --unused',
  ).toEqual([]);
});

test('no entry re-exports a whole module (`export *`): every name it exports is listed where it is exported', () => {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts'], {
    cwd: join(import.meta.dirname, '..'),
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f !== '' && !f.includes('node_modules/') && !f.startsWith('fixtures/'));
  const offenders = files.filter((f) =>
    /^export \* from /m.test(readFileSync(join(import.meta.dirname, '..', f), 'utf8')),
  );
  expect(offenders, 'name each re-exported name: export { a, type B } from "./module.js"').toEqual([]);
});
