/**
 * Where snapshot texts are read and written: the one I/O edge of the verdict (the verdict itself is pure).
 * `toMatchAcpSnapshot` and the scenario corpus read their committed surfaces through a store; the matcher
 * writes what `--update-snapshots` (or a recording run) says through it. Files on disk in a run, a map in
 * the verdict's unit tests.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ScenarioPaths } from '../scenario/corpus.js';
import type { ExpectedSurfaces } from './verdict.js';

export interface SnapshotStore {
  /** The text at `path`, or undefined when there is none yet. */
  read(path: string): Promise<string | undefined>;
  /** Writes `text` at `path`, creating what is missing on the way. */
  write(path: string, text: string): Promise<void>;
}

/** Snapshot files on disk. */
export const fileSnapshotStore: SnapshotStore = {
  read: (path) => readFile(path, 'utf8').catch(() => undefined),
  async write(path, text) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  },
};

/** A store in memory: path → text (`files` shows what was written). */
export function memorySnapshotStore(
  initial: Record<string, string> = {},
): SnapshotStore & { files: Map<string, string> } {
  const files = new Map(Object.entries(initial));
  return {
    files,
    read: async (path) => files.get(path),
    async write(path, text) {
      files.set(path, text);
    },
  };
}

/** Reads the committed surfaces of a scenario. */
export async function readExpected(
  paths: ScenarioPaths,
  store: SnapshotStore = fileSnapshotStore,
): Promise<ExpectedSurfaces> {
  const [log, stdout, workspace] = await Promise.all([
    store.read(paths.session),
    store.read(paths.stdout),
    store.read(paths.workspaceExpected),
  ]);
  return { log, stdout, workspace };
}
