import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { makeWorkspace, type Workspace } from './test-context.js';
import type { FileAccess } from './types.js';
import { createWriteFile } from './write-file.js';

let ws: Workspace;
test.beforeEach(async () => {
  ws = await makeWorkspace();
});
test.afterEach(async () => ws.dispose());

const tool = createWriteFile();

test('creates a file and its parent directories, with a diff from nothing', async () => {
  const out = await tool.run({ path: 'deep/er/new.ts', content: 'a\nb\n' }, ws.ctx);
  const abs = `${ws.cwd}/deep/er/new.ts`;
  expect(out).toEqual({
    status: 'completed',
    output: 'Created deep/er/new.ts (2 lines).',
    content: [
      { type: 'content', content: { type: 'text', text: 'Created deep/er/new.ts (2 lines).' } },
      { type: 'diff', path: abs, oldText: null, newText: 'a\nb\n' },
    ],
    locations: [{ path: abs }],
  });
  expect(await readFile(abs, 'utf8')).toBe('a\nb\n');
});

test('overwrites a file, the diff carries the old text', async () => {
  await ws.write({ 'a.txt': 'old\n' });
  const out = await tool.run({ path: 'a.txt', content: 'new\nlines\nhere\n' }, ws.ctx);
  expect(out.output).toBe('Overwrote a.txt (3 lines, previously 1).');
  expect(out.content[1]).toEqual({
    type: 'diff',
    path: `${ws.cwd}/a.txt`,
    oldText: 'old\n',
    newText: 'new\nlines\nhere\n',
  });
  expect(await readFile(`${ws.cwd}/a.txt`, 'utf8')).toBe('new\nlines\nhere\n');
});

test('writing the same content says nothing changed', async () => {
  await ws.write({ 'a.txt': 'same\n' });
  const out = await tool.run({ path: 'a.txt', content: 'same\n' }, ws.ctx);
  expect(out).toMatchObject({
    status: 'completed',
    output: 'a.txt already had this content; nothing changed.',
  });
});

test('an empty content is a valid file', async () => {
  const out = await tool.run({ path: 'empty', content: '' }, ws.ctx);
  expect(out.output).toBe('Created empty (0 lines).');
  expect(await readFile(`${ws.cwd}/empty`, 'utf8')).toBe('');
});

test('writes go through ctx.fs', async () => {
  const writes: [string, string][] = [];
  const clientFs: FileAccess = {
    readText: async () => '',
    writeText: async (p, c) => {
      writes.push([p, c]);
    },
  };
  await tool.run({ path: 'x/y.txt', content: 'hello' }, { ...ws.ctx, fs: clientFs });
  expect(writes).toEqual([[`${ws.cwd}/x/y.txt`, 'hello']]);
});

test('errors: a directory, a parent that is a file, a failing client write', async () => {
  await ws.write({ 'dir/x': 'x', 'file.txt': 'f' });
  const dir = await tool.run({ path: 'dir', content: 'x' }, ws.ctx);
  expect(dir).toMatchObject({
    status: 'failed',
    output: 'Error: dir is a directory; give the path of a file inside it.',
  });
  const under = await tool.run({ path: 'file.txt/child', content: 'x' }, ws.ctx);
  expect(under.status).toBe('failed');
  expect(under.output).toMatch(/^Error: cannot write file\.txt\/child: .*(EEXIST|ENOTDIR)/);
  const refusing: FileAccess = {
    readText: async () => '',
    writeText: async () => {
      throw new Error('the client refused the write');
    },
  };
  const refused = await tool.run({ path: 'n.txt', content: 'x' }, { ...ws.ctx, fs: refusing });
  expect(refused.output).toBe('Error: cannot write n.txt: the client refused the write');
});

test('bad arguments name the field', async () => {
  const out = await tool.run({ path: 'a.txt' }, ws.ctx);
  expect(out.status).toBe('failed');
  expect(out.output).toContain('- content: Invalid input: expected string, received undefined');
  const empty = await tool.run({ path: '', content: 'x' }, ws.ctx);
  expect(empty.output).toContain('- path: Too small');
});

test('title and kind', () => {
  expect(tool.title({ path: 'x' })).toBe('Write x');
  expect(tool.kind).toBe('edit');
  expect(tool.permission).toBe('edit');
});
