/** Harvesting the agent's persisted session log and projecting it the way fixtures are stored. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type LogRecord, parseLogText, projectLog, readLogFile } from '@acp-snapshot/session-log';
import { rootMap, type TestRoots } from './roots.js';

/** The session log the agent persisted under the persistence root (`<sessionId>.jsonl` or `.jsonl.gz`). */
export async function harvestLog(
  persistRoot: string,
): Promise<{ file: string; records: LogRecord[] } | undefined> {
  const files = (await readdir(persistRoot, { recursive: true }))
    .map(String)
    .filter((f) => f.endsWith('.jsonl') || f.endsWith('.jsonl.gz'))
    .sort();
  if (files.length === 0) return undefined;
  if (files.length > 1) {
    throw new Error(
      `expected one session log under the persistence root, found ${files.length}: ${files.join(', ')} (a scenario records exactly one session)`,
    );
  }
  const file = join(persistRoot, files[0]!);
  const { records, warnings } = await readLogFile(file);
  if (warnings.length) throw new Error(`${file}: ${warnings.join('; ')}`);
  return { file, records };
}

/** Rewrites other spellings of a root (realpath) to the root itself, so projection sees one spelling. */
export function unaliasRecords(records: LogRecord[], roots: TestRoots): LogRecord[] {
  const pairs: Array<[string, string]> = [];
  const map = rootMap(roots);
  for (const [name, list] of Object.entries(roots.aliases)) {
    const canonical = map[name];
    if (canonical) for (const alias of list) pairs.push([alias, canonical]);
  }
  if (pairs.length === 0) return records;
  pairs.sort((a, b) => b[0].length - a[0].length);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return pairs.reduce((s, [alias, canon]) => s.split(alias).join(canon), v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return records.map((r) => walk(r) as LogRecord);
}

/** The fixture projection of a harvested log (roots -> placeholders, bulk -> sidecars); '' when there is none. */
export function projectHarvested(
  harvested: { records: LogRecord[] } | undefined,
  roots: TestRoots,
): { text: string; sidecars: Record<string, string> } {
  if (!harvested) return { text: '', sidecars: {} };
  return projectLog(unaliasRecords(harvested.records, roots), { roots: rootMap(roots) });
}

/** The number of model calls recorded in a projected log text (its llm/request events). */
export function recordedModelCalls(logText: string, file?: string): number {
  if (logText.trim() === '') return 0;
  return parseLogText(logText, file).records.filter((r) => r.event.type === 'llm/request').length;
}
