import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { createGrep } from './grep.js';
import { makeWorkspace, type Workspace } from './test-context.js';

let ws: Workspace;
test.beforeEach(async () => {
  ws = await makeWorkspace();
  await ws.write({
    'src/b.ts': 'export function beta() {}\n// TODO later\n',
    'src/a.ts': 'import x from "y";\nexport function alpha() {}\n',
    'lib/c.js': 'function gamma() {}\n',
    'notes.md': 'Function list\n',
    'node_modules/dep/index.js': 'function hidden() {}\n',
    'img.bin': Buffer.from([0x66, 0x75, 0x6e, 0x00, 0x63, 0x74, 0x69, 0x6f, 0x6e]),
  });
});
test.afterEach(async () => ws.dispose());

const tool = createGrep();

test('prints path:line:text sorted by path then line, skipping node_modules and binaries', async () => {
  const out = await tool.run({ pattern: 'function \\w+' }, ws.ctx);
  expect(out.status).toBe('completed');
  expect(out.output).toBe(
    'lib/c.js:1:function gamma() {}\nsrc/a.ts:2:export function alpha() {}\nsrc/b.ts:1:export function beta() {}\n',
  );
  expect(out.spill).toBeUndefined();
});

test('glob filters files (a slashless glob matches at any depth)', async () => {
  const out = await tool.run({ pattern: 'function', glob: '*.ts' }, ws.ctx);
  expect(out.output).toBe('src/a.ts:2:export function alpha() {}\nsrc/b.ts:1:export function beta() {}\n');
  const rooted = await tool.run({ pattern: 'function', glob: 'lib/*.{js,ts}' }, ws.ctx);
  expect(rooted.output).toBe('lib/c.js:1:function gamma() {}\n');
});

test('path may be a directory or a single file; ignore_case', async () => {
  const dir = await tool.run({ pattern: 'TODO', path: 'src' }, ws.ctx);
  expect(dir.output).toBe('src/b.ts:2:// TODO later\n');
  const file = await tool.run({ pattern: 'function', path: 'notes.md', ignore_case: true }, ws.ctx);
  expect(file.output).toBe('notes.md:1:Function list\n');
  expect(file.locations).toEqual([{ path: `${ws.cwd}/notes.md` }]);
});

test('no match is a completed answer that says so', async () => {
  const out = await tool.run({ pattern: 'zeta', glob: '*.ts' }, ws.ctx);
  expect(out).toMatchObject({
    status: 'completed',
    output: 'No matches for /zeta/ in . (files matching *.ts).',
  });
});

test('caps the number of matches with a note', async () => {
  const out = await createGrep({ maxMatches: 2 }).run({ pattern: 'function' }, ws.ctx);
  expect(out.output).toBe(
    'lib/c.js:1:function gamma() {}\nsrc/a.ts:2:export function alpha() {}\n' +
      '[stopped after 2 matches; narrow the pattern, path or glob to see the rest]',
  );
});

test('long matching lines are cut', async () => {
  await ws.write({ 'long.txt': `needle ${'y'.repeat(40)}\n` });
  const out = await createGrep({ maxLineChars: 10 }).run({ pattern: 'needle' }, ws.ctx);
  expect(out.output).toBe('long.txt:1:needle yyy [line truncated]\n');
});

test('output over the preview budget is spilled in full and the preview names the file', async () => {
  const small = await makeWorkspace({ previewBudget: 200 });
  try {
    await small.write({ 'many.txt': Array.from({ length: 50 }, (_, i) => `hit ${i}`).join('\n') });
    const out = await tool.run({ pattern: 'hit' }, small.ctx);
    const full = Array.from({ length: 50 }, (_, i) => `many.txt:${i + 1}:hit ${i}\n`).join('');
    const path = `${small.spillRoot}/spill-1.txt`;
    expect(out.spill).toEqual({ path, bytes: Buffer.byteLength(full) });
    expect(await readFile(path, 'utf8')).toBe(full);
    expect(out.output.length).toBeLessThanOrEqual(200);
    expect(out.output.startsWith('many.txt:1:hit 0\n')).toBe(true);
    expect(out.output.split('\n').at(-1)).toBe(
      `[output truncated: the full output (${full.length} bytes) is in ${path}; read it with read_file, using offset and limit for long files]`,
    );
  } finally {
    await small.dispose();
  }
});

test('errors: invalid regex, missing path, bad arguments', async () => {
  const regex = await tool.run({ pattern: 'a(b' }, ws.ctx);
  expect(regex.status).toBe('failed');
  expect(regex.output).toBe(
    'Error: pattern is not a valid regular expression: Invalid regular expression: /a(b/: Unterminated group',
  );
  const missing = await tool.run({ pattern: 'x', path: 'nope' }, ws.ctx);
  expect(missing).toMatchObject({
    status: 'failed',
    output: 'Error: path not found: nope (the path argument).',
  });
  const bad = await tool.run({ pattern: 'x', ignore_case: 1 }, ws.ctx);
  expect(bad.output).toContain('- ignore_case: Invalid input: expected boolean, received number');
});

test('title', () => {
  expect(tool.title({ pattern: 'foo', path: 'src' })).toBe('Grep foo in src');
  expect(tool.title({})).toBe('Grep');
});
