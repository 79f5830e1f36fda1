import { expect, test } from '@playwright/test';
import {
  declaredGraph,
  entryFor,
  FolderRulesError,
  folderRuleViolation,
  parseFolderRules,
} from './folder-rules.js';
import { importCycles } from './import-cycles.js';

const DRIVER = parseFolderRules(
  'pkg/src/driver/DEPS.list',
  ['# the driver', '../profile.ts', '../process/  # spawning', '[acp-client.ts]', '../roots/', ''].join('\n'),
);

test('a DEPS.list allows its entries, its file sections for their file only, and the folder itself', () => {
  const imp = (file: string, spec: string) => ({ file, line: 3, spec });
  const client = 'pkg/src/driver/acp-client.ts';
  const driver = 'pkg/src/driver/driver.ts';
  expect(folderRuleViolation(DRIVER, imp(driver, '../profile.js'), 'pkg/src/profile.ts')).toBeUndefined();
  expect(
    folderRuleViolation(DRIVER, imp(driver, '../process/spawn.js'), 'pkg/src/process/spawn.ts'),
  ).toBeUndefined();
  expect(
    folderRuleViolation(DRIVER, imp(driver, './exchange.js'), 'pkg/src/driver/exchange.ts'),
  ).toBeUndefined();
  expect(
    folderRuleViolation(DRIVER, imp(client, '../roots/roots.js'), 'pkg/src/roots/roots.ts'),
  ).toBeUndefined();
  expect(folderRuleViolation(DRIVER, imp(driver, '../roots/roots.js'), 'pkg/src/roots/roots.ts')).toBe(
    "pkg/src/driver/driver.ts:3: '../roots/roots.js': pkg/src/driver/ may not import pkg/src/roots/roots.ts " +
      '(pkg/src/driver/DEPS.list allows ../profile.ts, ../process/); name it there if pkg/src/driver/ sits above ' +
      'it, or move the code',
  );
  // A folder entry is the files directly in it, not its subfolders; a file entry is that file only.
  expect(folderRuleViolation(DRIVER, imp(driver, '../process/x/y.js'), 'pkg/src/process/x/y.ts')).toMatch(
    /may not import pkg\/src\/process\/x\/y\.ts/,
  );
  expect(folderRuleViolation(DRIVER, imp(driver, '../index.js'), 'pkg/src/index.ts')).toMatch(
    /may not import pkg\/src\/index\.ts/,
  );
});

test('a DEPS.list line that is no rule fails naming the file and line', () => {
  expect(() => parseFolderRules('pkg/src/a/DEPS.list', '../b/\nroots\n')).toThrow(FolderRulesError);
  expect(() => parseFolderRules('pkg/src/a/DEPS.list', '../b/\nroots\n')).toThrow(
    /^pkg\/src\/a\/DEPS\.list:2: "roots" is no rule: write a section/,
  );
});

test('the declared graph has a node per folder and per sectioned file, so a file section is no cycle', () => {
  const top = parseFolderRules('pkg/src/DEPS.list', '[profile.ts]\n[index.ts]\n./driver/\n');
  const graph = declaredGraph([top, DRIVER]);
  expect(graph.get('pkg/src/index.ts')).toEqual(['pkg/src/driver']);
  expect(graph.get('pkg/src/driver')).toEqual(['pkg/src/profile.ts', 'pkg/src/process']);
  expect(importCycles(graph)).toEqual([]);
  const upward = parseFolderRules('pkg/src/process/DEPS.list', '../driver/\n');
  expect(importCycles(declaredGraph([top, DRIVER, upward]))).toEqual([['pkg/src/driver', 'pkg/src/process']]);
});

test('the entry proposed for an import names a folder, or the file when it lies in a folder above', () => {
  expect(entryFor('pkg/src/cli', 'pkg/src/modes/record.ts')).toBe('../modes/');
  expect(entryFor('pkg/src', 'pkg/src/calls/derive.ts')).toBe('./calls/');
  expect(entryFor('pkg/src/cli', 'pkg/src/profile.ts')).toBe('../profile.ts');
  expect(entryFor('pkg/src/a/b', 'pkg/package.json')).toBe('../../../package.json');
});
