// Test support for the tool tests: a real temp directory and a ToolContext over the local disk.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { localFileAccess } from '../file-access.js';
import type { ToolContext } from './types.js';

/** A temp workspace (cwd + spill root) and a context for running tools in it. */
export interface Workspace {
  cwd: string;
  spillRoot: string;
  ctx: ToolContext;
  /** Writes files relative to cwd (parents created). */
  write(files: Record<string, string | Buffer>): Promise<void>;
  dispose(): Promise<void>;
}

/** Creates a fresh workspace; `over` replaces context fields (budget, env, signal, fs...). */
export async function makeWorkspace(over: Partial<ToolContext> = {}): Promise<Workspace> {
  const base = await mkdtemp(join(tmpdir(), 'acp-tools-'));
  const cwd = join(base, 'project');
  const spillRoot = join(base, 'spill');
  await mkdir(cwd);
  let counter = 0;
  const ctx: ToolContext = {
    cwd,
    spillRoot,
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8' },
    signal: new AbortController().signal,
    newId: (prefix) => `${prefix}-${++counter}`,
    fs: localFileAccess,
    previewBudget: 8000,
    bashTimeoutMs: 20_000,
    ...over,
  };
  return {
    cwd,
    spillRoot,
    ctx,
    async write(files) {
      for (const [rel, content] of Object.entries(files)) {
        const abs = join(cwd, rel);
        await mkdir(dirname(abs), { recursive: true });
        await writeFile(abs, content);
      }
    },
    dispose: () => rm(base, { recursive: true, force: true }),
  };
}

/** Whether a process is alive: it exists (signal 0 probes) and is not a zombie awaiting its reaper. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; state Z means dead but not yet reaped.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
