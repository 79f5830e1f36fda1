import { mkdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { isIdentifyingHome } from '@acp-snapshot/model-http';
import { expect, test } from '@playwright/test';
import { createTestRoots, machineRoots, removeTestRoots, rootMap, scenarioKey } from './roots.js';

test('roots are fresh, isolated, seeded, and of fixed length per scenario', async () => {
  const seed = await mkdtemp(join(tmpdir(), 'seed-'));
  mkdirSync(join(seed, 'src'));
  await writeFile(join(seed, 'src', 'a.txt'), 'hello\n');
  const a = await createTestRoots('hello', { seedDir: seed });
  const b = await createTestRoots('hello', { seedDir: seed });
  try {
    expect(a.root).toMatch(new RegExp(`^/tmp/acp-snap-${scenarioKey('hello')}-[A-Za-z0-9]{6}$`));
    expect(a.root).not.toBe(b.root);
    expect(a.spillRoot.length).toBe(b.spillRoot.length);
    expect(a.cwd.length).toBe(b.cwd.length);
    expect(await readFile(join(a.cwd, 'src', 'a.txt'), 'utf8')).toBe('hello\n');
    await writeFile(join(a.cwd, 'src', 'a.txt'), 'changed');
    expect(await readFile(join(b.cwd, 'src', 'a.txt'), 'utf8')).toBe('hello\n');
    expect(rootMap(a)).toEqual({
      cwd: `${a.root}/work`,
      persist: `${a.root}/persist`,
      spill: `${a.root}/spill`,
      home: `${a.root}/home`,
      root: a.root,
      ...machineRoots(),
    });
    // The machine's real home is a root of every run (tool output may show it), never the generated HOME,
    // when it identifies someone: root's `/root` is a fixed path, the same for every account that replays.
    expect(a.realHome).toBe(isIdentifyingHome(userInfo().homedir) ? userInfo().homedir : undefined);
    expect(scenarioKey('hello')).not.toBe(scenarioKey('hello2'));
  } finally {
    await Promise.all([removeTestRoots(a), removeTestRoots(b), rm(seed, { recursive: true })]);
  }
});

test('a seed is copied as written: nested files, empty dirs, and a relative symlink left relative', async () => {
  const seed = await mkdtemp(join(tmpdir(), 'seed-'));
  mkdirSync(join(seed, 'src', 'deep'), { recursive: true });
  mkdirSync(join(seed, 'empty'));
  await writeFile(join(seed, 'src', 'deep', 'b.txt'), 'b\n');
  await symlink('src/deep/b.txt', join(seed, 'link.txt'));
  const r = await createTestRoots('seed-copy', { seedDir: seed });
  try {
    expect(await readFile(join(r.cwd, 'src', 'deep', 'b.txt'), 'utf8')).toBe('b\n');
    expect(await readlink(join(r.cwd, 'link.txt'))).toBe('src/deep/b.txt');
    expect(await readFile(join(r.cwd, 'link.txt'), 'utf8')).toBe('b\n');
    expect(statSync(join(r.cwd, 'empty')).isDirectory()).toBe(true);
  } finally {
    await Promise.all([removeTestRoots(r), rm(seed, { recursive: true })]);
  }
});

test('workspaceParent seeds the parent and puts the cwd inside it', async () => {
  const seed = await mkdtemp(join(tmpdir(), 'seed-'));
  await writeFile(join(seed, 'AGENTS.md'), 'rules');
  const r = await createTestRoots('wp', { seedDir: seed, workspaceParent: 'packages/app' });
  try {
    expect(r.workspaceParent).toBe(`${r.root}/work`);
    expect(r.cwd).toBe(`${r.root}/work/packages/app`);
    expect(await readFile(join(r.cwd, '..', '..', 'AGENTS.md'), 'utf8')).toBe('rules');
  } finally {
    await Promise.all([removeTestRoots(r), rm(seed, { recursive: true })]);
  }
});

test('a symlinked base records the real path as an alias', async () => {
  const real = await mkdtemp(join(tmpdir(), 'real-'));
  const link = `${real}-link`;
  await symlink(real, link);
  const r = await createTestRoots('alias', { base: link });
  try {
    expect(r.aliases.cwd).toEqual([`${real}${r.cwd.slice(link.length)}`]);
  } finally {
    await removeTestRoots(r);
    await rm(link);
    await rm(real, { recursive: true });
  }
});

test('a home is a root only when it identifies someone: not a fixed system path, not a common account', () => {
  const roots = ['/home/alice', '/Users/bob smith', '/home/carol.d', '/srv/homes/erin'];
  const constants = [
    '/root',
    '/',
    '',
    '/nonexistent',
    '/app',
    '/home/node',
    '/home/runner',
    '/var/root',
    '/home/USER',
  ];
  expect(roots.filter((h) => isIdentifyingHome(h))).toEqual(roots);
  expect(constants.filter((h) => isIdentifyingHome(h))).toEqual([]);
});

test('replaying a recording that names a real home, this run hides its own home even when it names nobody', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'recording-'));
  try {
    const named = join(dir, 'named.jsonl');
    const plain = join(dir, 'plain.jsonl');
    await writeFile(named, '{"text":"{{realHome}}\\nHOME={{home}}"}\n');
    await writeFile(plain, '{"agent_name":"/root"}\n');
    const home = userInfo().homedir;
    // Recorded where the home identified someone: root's /root stands for it here.
    expect(machineRoots(named).realHome).toBe(home !== '/' ? home : undefined);
    // Recorded as root (the constant /root kept as written), or no recording: the rule alone.
    const ruled = isIdentifyingHome(home) ? home : undefined;
    expect(machineRoots(plain).realHome).toBe(ruled);
    expect(machineRoots(join(dir, 'missing.jsonl')).realHome).toBe(ruled);
  } finally {
    await rm(dir, { recursive: true });
  }
});
