import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { createEditFile } from './edit-file.js';
import { makeWorkspace, type Workspace } from './test-context.js';

let ws: Workspace;
test.beforeEach(async () => {
  ws = await makeWorkspace();
});
test.afterEach(async () => ws.dispose());

const tool = createEditFile();
const text = 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n';

test('replaces the one occurrence and reports a full-file diff and the line', async () => {
  await ws.write({ 'src/x.ts': text });
  const out = await tool.run(
    { path: 'src/x.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' },
    ws.ctx,
  );
  const abs = `${ws.cwd}/src/x.ts`;
  const newText = 'const a = 1;\nconst b = 3;\nconst a2 = 1;\n';
  expect(out).toEqual({
    status: 'completed',
    output: 'Edited src/x.ts: replaced 1 occurrence (line 2).',
    content: [
      {
        type: 'content',
        content: { type: 'text', text: 'Edited src/x.ts: replaced 1 occurrence (line 2).' },
      },
      { type: 'diff', path: abs, oldText: text, newText },
    ],
    locations: [{ path: abs, line: 2 }],
  });
  expect(await readFile(abs, 'utf8')).toBe(newText);
});

test('an ambiguous string is refused with the count and lines', async () => {
  await ws.write({ 'x.ts': text });
  const out = await tool.run({ path: 'x.ts', old_string: '= 1;', new_string: '= 9;' }, ws.ctx);
  expect(out.status).toBe('failed');
  expect(out.output).toBe(
    'Error: old_string occurs 2 times in x.ts (lines 1, 3). Add surrounding lines to old_string so it matches ' +
      'exactly one place, or set replace_all to true to replace every occurrence.',
  );
  expect(await readFile(`${ws.cwd}/x.ts`, 'utf8')).toBe(text);
});

test('replace_all replaces every occurrence', async () => {
  await ws.write({ 'x.ts': text });
  const out = await tool.run(
    { path: 'x.ts', old_string: '= 1;', new_string: '= 9;', replace_all: true },
    ws.ctx,
  );
  expect(out.output).toBe('Edited x.ts: replaced 2 occurrences (lines 1, 3).');
  expect(await readFile(`${ws.cwd}/x.ts`, 'utf8')).toBe('const a = 9;\nconst b = 2;\nconst a2 = 9;\n');
});

test('replacement text is literal ($& and $1 are not patterns)', async () => {
  await ws.write({ 'x.ts': 'price\n' });
  await tool.run({ path: 'x.ts', old_string: 'price', new_string: '$& $1 $$' }, ws.ctx);
  expect(await readFile(`${ws.cwd}/x.ts`, 'utf8')).toBe('$& $1 $$\n');
});

test('multi-line strings and deletions work', async () => {
  await ws.write({ 'x.ts': text });
  const out = await tool.run(
    { path: 'x.ts', old_string: 'const b = 2;\nconst a2', new_string: 'const a2' },
    ws.ctx,
  );
  expect(out.output).toBe('Edited x.ts: replaced 1 occurrence (line 2).');
  expect(await readFile(`${ws.cwd}/x.ts`, 'utf8')).toBe('const a = 1;\nconst a2 = 1;\n');
});

test('errors: string not found, empty, identical, missing file, directory', async () => {
  await ws.write({ 'x.ts': text, 'd/f': '' });
  const cases: [unknown, string][] = [
    [
      { path: 'x.ts', old_string: 'const c', new_string: 'x' },
      'Error: old_string was not found in x.ts. Read the file again and copy the exact text, including whitespace and indentation.',
    ],
    [
      { path: 'x.ts', old_string: '', new_string: 'x' },
      'Error: old_string is empty. To create a file or replace all of it, use write_file.',
    ],
    [
      { path: 'x.ts', old_string: 'a', new_string: 'a' },
      'Error: old_string and new_string are identical, so the edit would change nothing.',
    ],
    [
      { path: 'nope.ts', old_string: 'a', new_string: 'b' },
      'Error: file not found: nope.ts. Use glob to find the right path.',
    ],
    [
      { path: 'd', old_string: 'a', new_string: 'b' },
      'Error: d is a directory, not a file. Use glob with path "d" to list its files.',
    ],
  ];
  for (const [args, expected] of cases) {
    const out = await tool.run(args, ws.ctx);
    expect(out).toMatchObject({ status: 'failed', output: expected });
  }
  expect(await readFile(`${ws.cwd}/x.ts`, 'utf8')).toBe(text);
});

test('bad arguments name the field', async () => {
  const out = await tool.run({ path: 'x.ts', old_string: 'a', replace_all: 'yes' }, ws.ctx);
  expect(out.status).toBe('failed');
  expect(out.output).toContain('- new_string: Invalid input: expected string, received undefined');
  expect(out.output).toContain('- replace_all: Invalid input: expected boolean, received string');
});

test('title', () => {
  expect(tool.title({ path: 'x' })).toBe('Edit x');
  expect(tool.title(undefined)).toBe('Edit file');
});
