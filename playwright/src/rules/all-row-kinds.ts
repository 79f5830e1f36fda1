/** The all-row-kinds scenario holds every storage row kind and decodes to its independent source recording. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseLogText, projectLog } from '@acp-snapshot/session-log';
import {
  ALL_ROW_KINDS,
  ALL_ROW_KINDS_SOURCE,
  type GuardContext,
  ROW_KINDS,
  rowKind,
} from './guard-context.js';

export async function checkAllRowKinds(ctx: GuardContext): Promise<void> {
  if (!ctx.scenarioNames.includes(ALL_ROW_KINDS)) return;
  const dir = join(ctx.scenariosDir, ALL_ROW_KINDS);
  const { show, add } = ctx;
  const logFile = join(dir, 'session.jsonl');
  const sourceFile = join(dir, ALL_ROW_KINDS_SOURCE);
  if (!existsSync(logFile)) return; // reported by scenario-files
  const text = await readFile(logFile, 'utf8');
  const kinds = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      kinds.add(rowKind(JSON.parse(line)));
    } catch {
      kinds.add('unknown');
    }
  }
  const missing = ROW_KINDS.filter((k) => !kinds.has(k));
  if (missing.length)
    add(
      'all-row-kinds',
      `${show(logFile)}: lacks storage row kind(s) ${missing.join(', ')} (it must hold every row kind)`,
    );
  if (!existsSync(sourceFile)) {
    add(
      'all-row-kinds',
      `${show(sourceFile)}: missing (the independent source recording the fixture is derived from)`,
    );
    return;
  }
  try {
    const source = parseLogText(await readFile(sourceFile, 'utf8'), show(sourceFile));
    const projected = parseLogText(projectLog(source.records, { roots: {} }).text, show(sourceFile));
    const fixture = parseLogText(text, show(logFile));
    const a = projected.records.map((r) => r.event);
    const b = fixture.records.map((r) => r.event);
    const at = a.findIndex((e, i) => !isDeepStrictEqual(e, b[i]));
    if (a.length !== b.length || at >= 0) {
      const i = at >= 0 ? at : Math.min(a.length, b.length);
      add(
        'all-row-kinds',
        `${show(logFile)}: does not decode to the events of ${show(sourceFile)} (first difference at event ${i + 1} of ${a.length}/${b.length}); re-derive it from the source`,
      );
    }
  } catch (err) {
    add('all-row-kinds', (err as Error).message);
  }
}
