/** Harvesting the agent's persisted session log and projecting it the way fixtures are stored. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  LOG_FORMAT,
  LOG_FORMAT_VERSION,
  type LogRecord,
  parseLogText,
  projectLog,
  readLogFile,
  type SessionHeader,
} from '@acp-snapshot/session-log';
import { normalizeJsonlText } from '../normalize/normalize.js';
import { rootMap, type TestRoots } from '../roots/roots.js';

/** The session log the agent persisted under the persistence root (`<sessionId>.jsonl` or `.jsonl.gz`). */
export async function harvestLog(
  persistRoot: string,
): Promise<{ file: string; records: LogRecord[] } | undefined> {
  const files = await persistedLogFiles(persistRoot);
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

/** The session log files under the persistence root, relative to it, sorted. */
async function persistedLogFiles(persistRoot: string): Promise<string[]> {
  return (await readdir(persistRoot, { recursive: true }))
    .map(String)
    .filter((f) => f.endsWith('.jsonl') || f.endsWith('.jsonl.gz'))
    .sort();
}

/**
 * The uncompressed logs under the persistence root exactly as on disk, unparsed: what a failed run
 * leaves for its report (a torn tail included); '' when there is none.
 */
export async function persistedLogText(persistRoot: string): Promise<string> {
  const files = (await persistedLogFiles(persistRoot).catch(() => [])).filter((f) => f.endsWith('.jsonl'));
  const texts = await Promise.all(files.map((f) => readFile(join(persistRoot, f), 'utf8')));
  return texts.join('');
}

/** The fixture projection of a harvested log (roots -> placeholders, bulk -> sidecars); '' when there is none. */
export function projectHarvested(
  harvested: { records: LogRecord[] } | undefined,
  roots: TestRoots,
): { text: string; sidecars: Record<string, string> } {
  if (!harvested) return { text: '', sidecars: {} };
  // projectLog also replaces the roots' other spellings (realpath, /private twins) while they exist.
  return projectLog(harvested.records, { roots: rootMap(roots) });
}

/** What the harness writes for a header field the agent never told it (no agentInfo, no provider). */
export const UNKNOWN = 'unknown';

/** What the harness saw of a session whose agent persisted no log. */
export interface ObservedSession {
  /** The session id session/new returned. */
  sessionId: string;
  /** The initialize result's agentInfo, when the agent sent one. */
  agentInfo?: { name: string; version: string };
}

/**
 * The header-only log of a session whose agent persisted none (docs/decisions/0004): built from what
 * the harness observed, projected like any log, and normalized, because it is never a replay source
 * and the agent's random session id must not make every recording differ.
 */
export function observedHeaderOnlyLog(
  observed: ObservedSession,
  roots: TestRoots,
): { text: string; sidecars: Record<string, string> } {
  const header: SessionHeader = {
    type: 'session/header',
    format: LOG_FORMAT,
    version: LOG_FORMAT_VERSION,
    sessionId: observed.sessionId,
    agent: observed.agentInfo ?? { name: UNKNOWN, version: UNKNOWN },
    provider: { plugin: UNKNOWN, model: UNKNOWN },
    cwd: roots.cwd,
    systemPrompt: '',
    tools: [],
    config: {},
  };
  const projected = projectHarvested({ records: [{ event: header }] }, roots);
  return { text: normalizeJsonlText(projected.text), sidecars: projected.sidecars };
}

/** The number of model calls recorded in a projected log text (its llm/request events). */
export function recordedModelCalls(logText: string, file?: string): number {
  if (logText.trim() === '') return 0;
  return parseLogText(logText, file).records.filter((r) => r.event.type === 'llm/request').length;
}

/**
 * A replayed log names the replay plugin as its provider; the recording names the provider that
 * produced the answers. Replay serves exactly what that provider answered, so the replayed header
 * takes the recorded `provider.plugin` (the model and everything else are still compared).
 */
export function adoptRecordedProvider(replayed: string, recorded: string | undefined): string {
  if (!recorded) return replayed;
  const nl = replayed.indexOf('\n');
  const firstLine = (t: string) => t.slice(0, t.indexOf('\n') >>> 0);
  try {
    const live = JSON.parse(firstLine(replayed)) as { type?: string; provider?: { plugin?: string } };
    const rec = JSON.parse(firstLine(recorded)) as { type?: string; provider?: { plugin?: string } };
    if (
      live.type !== 'session/header' ||
      rec.type !== 'session/header' ||
      !live.provider ||
      !rec.provider?.plugin
    ) {
      return replayed;
    }
    if (live.provider.plugin === rec.provider.plugin) return replayed;
    live.provider.plugin = rec.provider.plugin;
    return JSON.stringify(live) + (nl >= 0 ? replayed.slice(nl) : '');
  } catch {
    return replayed;
  }
}

/** {@link adoptRecordedProvider} for records: the replayed header takes the recorded `provider.plugin`. */
export function recordsWithRecordedProvider(records: readonly LogRecord[], recorded: string): LogRecord[] {
  let plugin: string | undefined;
  try {
    plugin = (
      JSON.parse(recorded.slice(0, recorded.indexOf('\n') >>> 0)) as { provider?: { plugin?: string } }
    ).provider?.plugin;
  } catch {
    return [...records];
  }
  if (!plugin) return [...records];
  return records.map((r) =>
    r.event.type === 'session/header'
      ? { ...r, event: { ...r.event, provider: { ...r.event.provider, plugin } } }
      : r,
  );
}
