/** Sidecar housekeeping: which sidecars the committed session fixtures reference. */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseLogText } from '@acp-snapshot/session-log';

/** sha256 names of the sidecars referenced by the session.jsonl of every scenario. */
export async function referencedSidecars(fixturesDir: string): Promise<Set<string>> {
  const refs = new Set<string>();
  const scenarios = await readdir(join(fixturesDir, 'scenarios'), { withFileTypes: true }).catch(() => []);
  for (const e of scenarios) {
    if (!e.isDirectory()) continue;
    const file = join(fixturesDir, 'scenarios', e.name, 'session.jsonl');
    const text = await readFile(file, 'utf8').catch(() => '');
    if (!text.trim()) continue;
    for (const { event } of parseLogText(text, file).records) {
      if (event.type !== 'session/header') continue;
      if (typeof event.systemPrompt === 'object') refs.add(event.systemPrompt.sidecar);
      if (!Array.isArray(event.tools)) refs.add(event.tools.sidecar);
    }
  }
  return refs;
}

/** Deletes `<sha256>.json` sidecars no session fixture references; returns the removed paths. */
export async function pruneSidecars(fixturesDir: string): Promise<string[]> {
  const dir = join(fixturesDir, 'sidecars');
  const refs = await referencedSidecars(fixturesDir);
  const removed: string[] = [];
  for (const name of (await readdir(dir).catch(() => [] as string[])).sort()) {
    if (!/^[0-9a-f]{64}\.json$/.test(name) || refs.has(name.slice(0, 64))) continue;
    await rm(join(dir, name));
    removed.push(join(dir, name));
  }
  return removed;
}
