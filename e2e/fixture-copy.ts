/** Scratch copies of committed scenarios, for tests that change fixtures the way a user would. */
import { cp, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturesDir } from '@acp-snapshot/playwright/testing';

/**
 * A fixtures directory holding the named scenarios and every committed sidecar: a new temp dir, or
 * `into` (created).
 */
export async function tempFixtures(names: readonly string[], into?: string): Promise<string> {
  const dir = into ?? (await mkdtemp(join(tmpdir(), 'acp-snap-proof-')));
  await mkdir(join(dir, 'scenarios'), { recursive: true });
  await cp(join(fixturesDir(), 'sidecars'), join(dir, 'sidecars'), { recursive: true });
  for (const n of names)
    await cp(join(fixturesDir(), 'scenarios', n), join(dir, 'scenarios', n), { recursive: true });
  return dir;
}
