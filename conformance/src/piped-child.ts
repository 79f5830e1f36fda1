/**
 * An agent's process: spawned detached (its own process group, so whoever started it, the harness's driver
 * or the kit's client, can signal everything it started) with exactly the given environment and a pipe on
 * each stdio stream.
 *
 * node:child_process rather than execa: these are its two features used here, and execa's ~100 modules cost
 * every Playwright worker ~0.4 s to load (a red run pays a worker start per failing test).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/** How the process ended; `error` when it could not start (`code` ENOENT: command not found). */
export interface ChildEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  error?: NodeJS.ErrnoException;
}

export interface PipedChild {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves once the process has exited and its stdio has closed (never rejects). */
  readonly ended: Promise<ChildEnd>;
}

export function spawnPiped(
  file: string,
  args: readonly string[],
  opts: { cwd?: string; env: Record<string, string | undefined> },
): PipedChild {
  const child = spawn(file, [...args], {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const ended = new Promise<ChildEnd>((resolve) => {
    child.once('close', (exitCode, signal) => resolve({ exitCode, signal }));
    // A process that never started emits `error` (and may never emit `close`). Its end comes a turn later, so
    // whoever awaits the spawn itself (`spawn` / `error`) reports why first, not "exited before...".
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) setImmediate(() => resolve({ exitCode: null, signal: null, error }));
    });
  });
  return { child, ended };
}
