/**
 * Session logs: every session log under fixtures/ (and, with repoRoot, anywhere in the repository), found by
 * its header row, is the canonical packed projection; the sidecars they reference are collected for the
 * sidecar rules.
 */

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { recordCommand, refreshCommand } from '@acp-snapshot/core';
import { parseLogText, projectLog, type SessionEvent } from '@acp-snapshot/session-log';
import { firstDifferingLine } from '../report/diff.js';
import { ALL_ROW_KINDS_SOURCE, type GuardContext, readText, rowKind, walkFiles } from './guard-context.js';

/** Directories never searched for session logs when the repository is not a git checkout. */
const NOT_SOURCE = new Set([
  'node_modules',
  '.git',
  'dist',
  'test-results',
  'playwright-report',
  'blob-report',
]);

/**
 * The `.jsonl` files of a repository outside `skipDir`: what git tracks or would track (ignored files are
 * build or test output), or, outside a git checkout, every file but those under {@link NOT_SOURCE}.
 */
async function repoJsonlFiles(root: string, skipDir: string): Promise<string[]> {
  let files: string[];
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 2 ** 20,
    });
    files = listed
      .split('\0')
      .filter(Boolean)
      .map((f) => join(root, f));
  } catch {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    files = entries
      .filter(
        (e) =>
          e.isFile() &&
          !relative(root, e.parentPath)
            .split(sep)
            .some((d) => NOT_SOURCE.has(d)),
      )
      .map((e) => join(e.parentPath, e.name));
  }
  const skip = join(skipDir, sep);
  return files.filter((f) => f.endsWith('.jsonl') && !f.startsWith(skip) && existsSync(f)).sort();
}

function firstLineIsHeader(text: string): boolean {
  const first = text.slice(0, text.indexOf('\n') >>> 0);
  try {
    return rowKind(JSON.parse(first)) === 'header';
  } catch {
    return false;
  }
}

function sidecarRefs(event: SessionEvent): string[] {
  if (event.type !== 'session/header') return [];
  const refs: string[] = [];
  if (typeof event.systemPrompt === 'object') refs.push(event.systemPrompt.sidecar);
  if (!Array.isArray(event.tools)) refs.push(event.tools.sidecar);
  return refs;
}

export async function checkSessionLogs(ctx: GuardContext): Promise<void> {
  const { opts, fixturesDir, scenariosDir, show, add, referenced } = ctx;
  // Session fixtures anywhere under fixtures/ (and, with repoRoot, anywhere in the repository), found by
  // their header row.
  const outside = opts.repoRoot ? await repoJsonlFiles(opts.repoRoot, fixturesDir) : [];
  for (const file of [...(await walkFiles(fixturesDir)), ...outside]) {
    if (!file.endsWith('.jsonl')) continue;
    if (file.endsWith(ALL_ROW_KINDS_SOURCE)) continue; // the raw source recording is deliberately not projected
    const scenario = relative(scenariosDir, dirname(file)).split(sep)[0] ?? '';
    const isOutside = outside.includes(file);
    const fix = isOutside
      ? 'a session log committed outside fixtures/ must be a fixture too: write it with projectLog from @acp-snapshot/session-log, or move it into a scenario'
      : `regenerate it: ${refreshCommand(scenario || 'NAME')}`;
    // Refresh replays the log it rewrites, so a log that does not parse can only be restored or recorded anew.
    const unreadableFix = isOutside
      ? fix
      : `refresh cannot read it either; restore the committed one: git checkout -- ${show(file)}, or record it anew: ${recordCommand(scenario || 'NAME')}`;
    const { text, notUtf8 } = await readText(file, show(file), unreadableFix);
    if (!firstLineIsHeader(text)) continue;
    if (notUtf8) {
      add('canonical-log', notUtf8);
      continue;
    }
    let events: SessionEvent[];
    try {
      const parsed = parseLogText(text, show(file));
      events = parsed.records.map((r) => r.event);
      const canonical = projectLog(parsed.records, { roots: {} }).text;
      if (canonical !== text) {
        add(
          'canonical-log',
          `${show(file)}:${firstDifferingLine(canonical, text)}: not the canonical packed projection (${fix})`,
        );
      }
    } catch (err) {
      add('canonical-log', `${(err as Error).message} (${unreadableFix})`);
      continue;
    }
    for (const ev of events) {
      for (const ref of sidecarRefs(ev)) referenced.set(ref, [...(referenced.get(ref) ?? []), file]);
    }
  }
}
