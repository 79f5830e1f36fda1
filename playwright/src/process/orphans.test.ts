import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { orphansMessage, processesInside, reapOrphans } from './orphans.js';

test('a detached process left in a directory is found, killed with its group, and named', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'orphans-test-'));
  try {
    const child = spawn('sleep', ['300'], { cwd: dir, detached: true, stdio: 'ignore' });
    child.unref();
    const exited = new Promise((res) => child.once('exit', (_code, signal) => res(signal)));
    expect((await processesInside(dir)).map((p) => p.command)).toEqual(['sleep 300']);
    const reaped = await reapOrphans(dir, { graceMs: 50 });
    expect(reaped).toEqual([{ pid: child.pid, command: 'sleep 300', cwd: dir }]);
    expect(await exited).toBe('SIGKILL');
    expect(await processesInside(dir)).toEqual([]);
    expect(orphansMessage(reaped)).toBe(
      `orphan processes: 1 process(es) were still running inside the test's directories after the agent exited (the harness killed them):\n  pid ${child.pid}: sleep 300 (cwd ${dir})`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a process that ends by itself within the grace period is no orphan', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'orphans-test-'));
  try {
    const child = spawn('sh', ['-c', 'read _ ; exit 0'], { cwd: dir, stdio: ['pipe', 'ignore', 'ignore'] });
    await new Promise((res) => child.once('spawn', res));
    const reaping = reapOrphans(dir, { graceMs: 5000 });
    child.stdin.end('go\n');
    expect(await reaping).toEqual([]);
    expect(child.signalCode).toBeNull();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a directory nothing runs in, or that does not exist, has no orphans', async () => {
  expect(await reapOrphans(join(tmpdir(), 'no-such-dir-for-orphans'))).toEqual([]);
});
