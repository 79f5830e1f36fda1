import { expect, test } from '@playwright/test';
import { createGlob } from './glob.js';
import { makeWorkspace, type Workspace } from './test-context.js';

let ws: Workspace;
test.beforeEach(async () => {
  ws = await makeWorkspace();
  await ws.write({
    'src/b.ts': '',
    'src/a.ts': '',
    'src/Z.ts': '',
    'src/util/c.ts': '',
    'src/util/d.js': '',
    'README.md': '',
    '.github/ci.yml': '',
    'node_modules/pkg/index.ts': '',
    'src/node_modules/x.ts': '',
    '.git/HEAD': '',
  });
});
test.afterEach(async () => ws.dispose());

const tool = createGlob();

test('matches recursively, sorted by code unit, skipping node_modules and .git', async () => {
  const out = await tool.run({ pattern: '**/*.ts' }, ws.ctx);
  expect(out.status).toBe('completed');
  expect(out.output).toBe('src/Z.ts\nsrc/a.ts\nsrc/b.ts\nsrc/util/c.ts');
  expect(out.locations).toEqual([{ path: ws.cwd }]);
});

test('"**/*" lists every file, dotfiles included', async () => {
  const out = await tool.run({ pattern: '**/*' }, ws.ctx);
  expect(out.output.split('\n')).toEqual([
    '.github/ci.yml',
    'README.md',
    'src/Z.ts',
    'src/a.ts',
    'src/b.ts',
    'src/util/c.ts',
    'src/util/d.js',
  ]);
});

test('*, ?, [..] and {a,b} patterns', async () => {
  const run = async (pattern: string) => (await tool.run({ pattern }, ws.ctx)).output;
  expect(await run('*.md')).toBe('README.md');
  expect(await run('src/?.ts')).toBe('src/Z.ts\nsrc/a.ts\nsrc/b.ts');
  expect(await run('src/[ab].ts')).toBe('src/a.ts\nsrc/b.ts');
  expect(await run('src/util/*.{js,ts}')).toBe('src/util/c.ts\nsrc/util/d.js');
});

test('path narrows the search; results stay relative to the cwd', async () => {
  const out = await tool.run({ pattern: '*', path: 'src/util' }, ws.ctx);
  expect(out.output).toBe('src/util/c.ts\nsrc/util/d.js');
  expect(out.locations).toEqual([{ path: `${ws.cwd}/src/util` }]);
  const inside = await tool.run({ pattern: '**/*.ts', path: 'node_modules' }, ws.ctx);
  expect(inside.output).toBe('node_modules/pkg/index.ts');
});

test('no match is a completed answer that says so', async () => {
  const out = await tool.run({ pattern: '**/*.rs', path: 'src' }, ws.ctx);
  expect(out).toMatchObject({ status: 'completed', output: 'No files match "**/*.rs" in src.' });
});

test('caps the listing with a note', async () => {
  const out = await createGlob({ maxResults: 2 }).run({ pattern: '**/*.ts' }, ws.ctx);
  expect(out.output).toBe(
    'src/Z.ts\nsrc/a.ts\n[2 more of 4 files not shown; use a narrower pattern or path]',
  );
});

test('errors: missing directory, path is a file, bad arguments', async () => {
  const missing = await tool.run({ pattern: '*', path: 'nope' }, ws.ctx);
  expect(missing).toMatchObject({
    status: 'failed',
    output: 'Error: directory not found: nope (the path argument).',
  });
  const file = await tool.run({ pattern: '*', path: 'README.md' }, ws.ctx);
  expect(file).toMatchObject({
    status: 'failed',
    output: 'Error: README.md is not a directory; path must name a directory.',
  });
  const bad = await tool.run({ pattern: 7 }, ws.ctx);
  expect(bad.status).toBe('failed');
  expect(bad.output).toContain('- pattern: Invalid input: expected string, received number');
});

test('title', () => {
  expect(tool.title({ pattern: '**/*.ts' })).toBe('Find **/*.ts');
  expect(tool.title({ pattern: '*.ts', path: 'src' })).toBe('Find *.ts in src');
  expect(tool.kind).toBe('search');
});
