import { expect, test } from '@playwright/test';
import { createReadFile } from './read-file.js';
import { makeWorkspace, type Workspace } from './test-context.js';
import type { FileAccess } from './types.js';

let ws: Workspace;
test.beforeEach(async () => {
  ws = await makeWorkspace();
});
test.afterEach(async () => ws.dispose());

const tool = createReadFile();

test('returns numbered lines, right-aligned to the widest number shown', async () => {
  await ws.write({ 'src/a.ts': `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n')}\n` });
  const out = await tool.run({ path: 'src/a.ts', offset: 8 }, ws.ctx);
  expect(out.status).toBe('completed');
  expect(out.output).toBe(' 8\tline 8\n 9\tline 9\n10\tline 10');
  expect(out.locations).toEqual([{ path: `${ws.cwd}/src/a.ts`, line: 8 }]);
  expect(out.content).toEqual([{ type: 'content', content: { type: 'text', text: out.output } }]);
});

test('limit pages through the file and says how to read on', async () => {
  await ws.write({ 'a.txt': 'one\ntwo\nthree\nfour\n' });
  const out = await tool.run({ path: 'a.txt', offset: 2, limit: 2 }, ws.ctx);
  expect(out.output).toBe(
    '2\ttwo\n3\tthree\n[showing lines 2-3 of 4; call read_file with offset=4 to read on]',
  );
});

test('stays within the preview budget (note included), cutting at a line', async () => {
  const small = await makeWorkspace({ previewBudget: 85 });
  try {
    await small.write({ 'a.txt': 'aaaaa\nbbbbb\nccccc\nddddd\n' });
    const out = await tool.run({ path: 'a.txt' }, small.ctx);
    expect(out.output).toBe(
      '1\taaaaa\n2\tbbbbb\n[showing lines 1-2 of 4; call read_file with offset=3 to read on]',
    );
    expect(out.output.length).toBeLessThanOrEqual(85);
  } finally {
    await small.dispose();
  }
});

test('very long lines are cut with a note', async () => {
  await ws.write({ 'long.txt': `${'x'.repeat(50)}\n` });
  const out = await createReadFile({ maxLineChars: 10 }).run({ path: 'long.txt' }, ws.ctx);
  expect(out.output).toBe('1\txxxxxxxxxx [line truncated: 50 characters]');
});

test('an empty file says so', async () => {
  await ws.write({ 'empty.txt': '' });
  const out = await tool.run({ path: 'empty.txt' }, ws.ctx);
  expect(out).toMatchObject({ status: 'completed', output: '(empty.txt is empty)' });
});

test('absolute paths work, paths outside the cwd are shown absolute', async () => {
  await ws.write({ 'a.txt': 'hi\n' });
  const out = await tool.run({ path: `${ws.cwd}/a.txt` }, ws.ctx);
  expect(out.output).toBe('1\thi');
  const outside = await tool.run({ path: `${ws.spillRoot}/nope.txt` }, ws.ctx);
  expect(outside.output).toBe(
    `Error: file not found: ${ws.spillRoot}/nope.txt. Use glob to find the right path.`,
  );
});

test('errors: missing file, directory, binary, offset past the end', async () => {
  await ws.write({
    'dir/x.txt': 'x\n',
    'bin.dat': Buffer.from([0x89, 0x50, 0x00, 0x01]),
    'two.txt': 'a\nb\n',
  });
  const cases: [unknown, string][] = [
    [{ path: 'missing.ts' }, 'Error: file not found: missing.ts. Use glob to find the right path.'],
    [{ path: 'dir' }, 'Error: dir is a directory, not a file. Use glob with path "dir" to list its files.'],
    [
      { path: 'bin.dat' },
      'Error: bin.dat is a binary file (it contains NUL bytes); only text files can be read or edited.',
    ],
    [{ path: 'two.txt', offset: 5 }, 'Error: offset 5 is past the end of two.txt, which has 2 lines.'],
  ];
  for (const [args, text] of cases) {
    const out = await tool.run(args, ws.ctx);
    expect(out.status).toBe('failed');
    expect(out.output).toBe(text);
    expect(out.content).toEqual([{ type: 'content', content: { type: 'text', text } }]);
  }
});

test('bad arguments fail with the field named, never throw', async () => {
  const missing = await tool.run({}, ws.ctx);
  expect(missing.status).toBe('failed');
  expect(missing.output).toBe(
    'Error: invalid arguments for read_file:\n- path: Invalid input: expected string, received undefined\n' +
      'Call read_file again with arguments that match its parameters schema.',
  );
  const wrongType = await tool.run({ path: 'a', offset: '3' }, ws.ctx);
  expect(wrongType.output).toContain('- offset: Invalid input: expected number, received string');
  const notObject = await tool.run(null, ws.ctx);
  expect(notObject.output).toContain('- path: Invalid input: expected string');
  const zero = await tool.run({ path: 'a', limit: 0 }, ws.ctx);
  expect(zero.output).toContain('- limit: Too small');
});

test('content comes through ctx.fs, so a client can serve unsaved buffers', async () => {
  await ws.write({ 'a.ts': 'on disk\n' });
  const reads: string[] = [];
  const clientFs: FileAccess = {
    readText: async (p) => {
      reads.push(p);
      return 'in the editor\n';
    },
    writeText: async () => {},
  };
  const out = await tool.run({ path: 'a.ts' }, { ...ws.ctx, fs: clientFs });
  expect(out.output).toBe('1\tin the editor');
  expect(reads).toEqual([`${ws.cwd}/a.ts`]);
});

test('title and locations come from possibly invalid arguments', () => {
  expect(tool.title({ path: 'src/a.ts' })).toBe('Read src/a.ts');
  expect(tool.title({})).toBe('Read file');
  expect(tool.title('garbage')).toBe('Read file');
  expect(tool.locations({ path: 'src/a.ts', offset: 3 }, '/w')).toEqual([{ path: '/w/src/a.ts', line: 3 }]);
  expect(tool.locations(42, '/w')).toEqual([]);
});
