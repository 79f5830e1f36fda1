import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createTestRoots, type TestRoots } from '../roots/roots.js';
import { expect, test } from '../testing/suite-test.js';
import {
  captureWorkspace,
  firstWorkspaceDifference,
  parseWorkspace,
  serializeWorkspace,
  type WorkspaceChange,
  WorkspaceFileError,
  workspaceFileProblem,
  workspaceMismatchMessage,
} from './workspace.js';
import { readTree, TREE_LIMITS, WorkspaceLimitError } from './workspace-tree.js';

let scratch: string;
let seed: string;
const made: TestRoots[] = [];

async function roots(opts: { workspaceParent?: string } = {}): Promise<TestRoots> {
  const r = await createTestRoots('workspace-test', { seedDir: seed, ...opts });
  made.push(r);
  return r;
}

test.beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'workspace-test-'));
  seed = join(scratch, 'seed');
  await mkdir(join(seed, 'src'), { recursive: true });
  await writeFile(join(seed, 'notes.txt'), 'one\ntwo\n');
  await writeFile(join(seed, 'src', 'keep.ts'), 'export const k = 1;\n');
  await writeFile(join(seed, 'old.txt'), 'bye\n');
  await writeFile(join(seed, 'run.sh'), 'echo hi\n');
});
test.afterEach(async () => {
  await Promise.all([
    rm(scratch, { recursive: true, force: true }),
    ...made.splice(0).map((r) => rm(r.root, { recursive: true, force: true })),
  ]);
});

test('added, changed and deleted entries, sorted by path; text as lines, binary by hash, links by target', async () => {
  const r = await roots();
  await writeFile(join(r.cwd, 'notes.txt'), `one\nwritten in ${r.cwd}/notes.txt\n`);
  await unlink(join(r.cwd, 'old.txt'));
  const logo = Buffer.from([0x89, 0x50, 0x00, 0xff]);
  await writeFile(join(r.cwd, 'logo.bin'), logo);
  await symlink(join(r.cwd, 'notes.txt'), join(r.cwd, 'link'));
  await mkdir(join(r.cwd, 'empty', 'deeper'), { recursive: true });
  await chmod(join(r.cwd, 'run.sh'), 0o755);
  const stdout = [{ text: '{"jsonrpc":"2.0","method":"x","params":{"sessionId":"sess-abc"}}', process: 0 }];
  await writeFile(join(r.cwd, 'src', 'id.txt'), 'session sess-abc');
  const text = await captureWorkspace({ roots: r, seedDir: seed, stdout });
  expect(parseWorkspace(text, 'w').files).toEqual([
    { path: 'empty/deeper/', change: 'added', kind: 'directory' },
    { path: 'link', change: 'added', kind: 'symlink', target: '{{cwd}}/notes.txt' },
    {
      path: 'logo.bin',
      change: 'added',
      kind: 'binary',
      size: 4,
      sha256: createHash('sha256').update(logo).digest('hex'),
    },
    {
      path: 'notes.txt',
      change: 'changed',
      kind: 'text',
      lines: ['one', 'written in {{cwd}}/notes.txt', ''],
    },
    { path: 'old.txt', change: 'deleted' },
    { path: 'run.sh', change: 'changed', kind: 'text', lines: ['echo hi', ''], executable: true },
    { path: 'src/id.txt', change: 'added', kind: 'text', lines: ['session {{sessionId:1}}'] },
  ]);
  // The committed form: pretty, one line of content per line, so a fixture diff reads line by line.
  expect(text).toContain(
    '      "lines": [\n        "one",\n        "written in {{cwd}}/notes.txt",\n        ""\n      ]',
  );
  expect(serializeWorkspace(parseWorkspace(text, 'w'))).toBe(text);
});

test('an untouched workspace, and a run without a seed, both state their outcome', async () => {
  const r = await roots();
  expect(await captureWorkspace({ roots: r, seedDir: seed })).toBe('{\n  "files": []\n}\n');
  const noSeed = await createTestRoots('workspace-test');
  made.push(noSeed);
  await writeFile(join(noSeed.cwd, 'new.md'), '# new');
  expect(
    parseWorkspace(await captureWorkspace({ roots: noSeed, seedDir: join(scratch, 'none') }), 'w'),
  ).toEqual({
    files: [{ path: 'new.md', change: 'added', kind: 'text', lines: ['# new'] }],
  });
});

test('with a workspace parent: the parent is compared, and the cwd the harness made is not an entry', async () => {
  const r = await roots({ workspaceParent: 'packages/app' });
  expect(await captureWorkspace({ roots: r, seedDir: seed })).toBe('{\n  "files": []\n}\n');
  await writeFile(join(r.workspaceParent!, 'top.txt'), `cwd is ${r.cwd}, parent ${r.workspaceParent}`);
  await writeFile(join(r.cwd, 'inner.txt'), 'x');
  expect(parseWorkspace(await captureWorkspace({ roots: r, seedDir: seed }), 'w').files).toEqual([
    { path: 'packages/app/inner.txt', change: 'added', kind: 'text', lines: ['x'] },
    { path: 'top.txt', change: 'added', kind: 'text', lines: ['cwd is {{cwd}}, parent {{workspaceParent}}'] },
  ]);
});

test('special files are named by type, never opened (a FIFO does not hang the capture)', async () => {
  const r = await roots();
  execFileSync('mkfifo', [join(r.cwd, 'pipe')]);
  expect(parseWorkspace(await captureWorkspace({ roots: r, seedDir: seed }), 'w').files).toEqual([
    { path: 'pipe', change: 'added', kind: 'other', type: 'fifo' },
  ]);
});

test('a huge or deeply nested workspace fails naming the file and the limit', async () => {
  const deep = join(scratch, 'deep');
  await mkdir(join(deep, ...Array.from({ length: TREE_LIMITS.maxDepth + 2 }, (_, i) => `d${i}`)), {
    recursive: true,
  });
  const deepError = await readTree(deep).catch((e: unknown) => e);
  expect(deepError).toBeInstanceOf(WorkspaceLimitError);
  expect((deepError as Error).message).toBe(
    `${join(deep, ...Array.from({ length: TREE_LIMITS.maxDepth + 1 }, (_, i) => `d${i}`))}: nested ${TREE_LIMITS.maxDepth + 1} directories deep, over the capture's limit of ${TREE_LIMITS.maxDepth}; a scenario's workspace must stay small enough to review: make the scenario (or the agent) leave less behind`,
  );
  const many = join(scratch, 'many');
  await mkdir(many);
  await Promise.all(
    Array.from({ length: 12 }, (_, i) => writeFile(join(many, `f${String(i).padStart(2, '0')}`), 'x')),
  );
  await expect(readTree(many, { ...TREE_LIMITS, maxEntries: 10 })).rejects.toThrow(
    `${join(many, 'f10')}: the workspace holds more than 10 entries (files, directories and links), the capture's limit;`,
  );
  const big = join(scratch, 'big');
  await mkdir(big);
  await writeFile(join(big, 'a.bin'), Buffer.alloc(3 * 2 ** 20));
  await writeFile(join(big, 'b.bin'), Buffer.alloc(3 * 2 ** 20));
  await expect(readTree(big, { ...TREE_LIMITS, maxFileBytes: 2 ** 20 })).rejects.toThrow(
    `${join(big, 'a.bin')}: 3 MiB, over the capture's limit of 1 MiB per file;`,
  );
  await expect(readTree(big, { ...TREE_LIMITS, maxTotalBytes: 5 * 2 ** 20 })).rejects.toThrow(
    `${join(big, 'b.bin')}: the workspace's files pass 5 MiB in total here, the capture's limit;`,
  );
});

const arbChange: fc.Arbitrary<WorkspaceChange> = fc.oneof(
  fc.record({ path: fc.string({ minLength: 1 }), change: fc.constant('deleted' as const) }),
  fc.record(
    {
      path: fc.string({ minLength: 1 }),
      change: fc.constantFrom('added' as const, 'changed' as const),
      kind: fc.constant('text' as const),
      lines: fc.array(fc.string(), { minLength: 1 }),
      executable: fc.constant(true as const),
    },
    { requiredKeys: ['path', 'change', 'kind', 'lines'] },
  ),
  fc.record({
    path: fc.string({ minLength: 1 }),
    change: fc.constantFrom('added' as const, 'changed' as const),
    kind: fc.constant('binary' as const),
    size: fc.nat(),
    sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
  }),
  fc.record({
    path: fc.string({ minLength: 1 }),
    change: fc.constantFrom('added' as const, 'changed' as const),
    kind: fc.constant('symlink' as const),
    target: fc.string(),
  }),
);

test('the serialization is canonical: parse then serialize gives the same bytes, whatever the input order', () => {
  fc.assert(
    fc.property(fc.uniqueArray(arbChange, { maxLength: 8, selector: (c) => c.path }), (files) => {
      const text = serializeWorkspace({ files });
      expect(serializeWorkspace(parseWorkspace(text, 'w'))).toBe(text);
      expect(serializeWorkspace({ files: [...files].reverse() })).toBe(text);
      expect(workspaceFileProblem(text, 'w', 'n')).toBeUndefined();
    }),
  );
});

test('a bad workspace.expected.json is named with the entry and the fix', () => {
  const bad = (v: unknown) => () =>
    parseWorkspace(JSON.stringify(v), 'fixtures/scenarios/s/workspace.expected.json');
  expect(bad({ files: [{ path: 'a', change: 'moved' }] })).toThrow(WorkspaceFileError);
  expect(bad({ files: [{ path: 'a', change: 'added', kind: 'text', lines: [] }] })).toThrow(
    /^fixtures\/scenarios\/s\/workspace.expected.json: files\[0\]\.lines: Too small/,
  );
  expect(bad({ files: [{ path: 'a', change: 'deleted', kind: 'text' }] })).toThrow(
    /files\[0\]: Unrecognized key: "kind"/,
  );
  expect(
    bad({
      files: [
        { path: 'a', change: 'deleted' },
        { path: 'a', change: 'deleted' },
      ],
    }),
  ).toThrow('files[1].path: "a" is listed twice');
  expect(bad([])).toThrow('must be an object with one key, "files" (an array)');
  expect(() => parseWorkspace('{', 'w.json')).toThrow(/^w\.json: not JSON/);
});

test('a differing workspace is reported by its first difference: the file and the line', () => {
  const text = (lines: string[]) =>
    serializeWorkspace({ files: [{ path: 'greeting.py', change: 'changed', kind: 'text', lines }] });
  const expected = text(['def greeting() -> str:', '    return "Hello, ACP"', '']);
  const actual = text(['def greeting() -> str:', '    return "Hello, world"', '']);
  expect(
    workspaceMismatchMessage(
      'edit-allowed',
      'fixtures/scenarios/edit-allowed/workspace.expected.json',
      expected,
      actual,
    ),
  ).toBe(
    'edit-allowed: the workspace the agent left differs from fixtures/scenarios/edit-allowed/workspace.expected.json: greeting.py (changed), line 2: expected "    return \\"Hello, ACP\\"", got "    return \\"Hello, world\\"". If the change is intended, run `npm run test:snapshot:update -- -g edit-allowed`.',
  );
  const w = (files: WorkspaceChange[]) => ({ files });
  expect(firstWorkspaceDifference(w([]), w([{ path: 'x', change: 'deleted' }]))).toBe(
    'x: deleted by the agent, but the expectation does not list it',
  );
  expect(firstWorkspaceDifference(w([{ path: 'x', change: 'deleted' }]), w([]))).toBe(
    'x: expected deleted, but the agent left it as in the seed',
  );
  expect(
    firstWorkspaceDifference(
      w([{ path: 'x', change: 'added', kind: 'text', lines: ['a'] }]),
      w([{ path: 'x', change: 'added', kind: 'binary', size: 1, sha256: '0'.repeat(64) }]),
    ),
  ).toBe('x: expected added (text), got added (binary)');
  expect(firstWorkspaceDifference(w([]), w([]))).toBeUndefined();
  expect(workspaceMismatchMessage('s', 'f.json', undefined, '')).toBe(
    'f.json is missing. If the change is intended, run `npm run test:snapshot:update -- -g s`.',
  );
});
