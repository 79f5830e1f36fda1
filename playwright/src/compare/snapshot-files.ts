/**
 * The snapshot files of a `toMatchAcpSnapshot` call: read through a {@link SnapshotStore}, judged by the one
 * verdict ({@link snapshotVerdict}), and the files it says to write written back through the store.
 */

import type { SnapshotStore } from './snapshot-store.js';
import type { Surface } from './surfaces.js';
import {
  type SnapshotFile,
  type SnapshotRun,
  type SnapshotVerdict,
  type SnapshotVerdictOptions,
  snapshotVerdict,
} from './verdict.js';

/** Where each surface's snapshot is, and how messages name it. */
export type SnapshotPaths = Record<Surface, { path: string; shown: string }>;

/** Reads the run's snapshot files, judges the run against them and writes what the verdict says. */
export async function settleSnapshots(
  store: SnapshotStore,
  paths: SnapshotPaths,
  run: SnapshotRun,
  opts: SnapshotVerdictOptions,
): Promise<SnapshotVerdict> {
  const surfaces: Surface[] = [
    'stdout',
    'workspace',
    ...(run.texts.log === undefined ? [] : ['log' as const]),
    ...(run.texts.mcp === undefined ? [] : ['mcp' as const]),
  ];
  const files: SnapshotFile[] = await Promise.all(
    surfaces.map(async (surface) => ({
      surface,
      shown: paths[surface].shown,
      expected: await store.read(paths[surface].path),
    })),
  );
  const verdict = snapshotVerdict(run, files, opts);
  for (const w of verdict.writes) await store.write(paths[w.surface].path, w.text);
  return verdict;
}
