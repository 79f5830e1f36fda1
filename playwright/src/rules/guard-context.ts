/**
 * What every fixture-tree rule shares: the options, where things are, how paths are shown, and where
 * violations go (each message starts with the path it is about; a path inside a scenario names the scenario).
 */

import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { decodeUtf8File, Utf8Error, updateSnapshotsCommand } from '@acp-snapshot/core';
import { rowKindOf } from '@acp-snapshot/session-log';
import { WORKSPACE_EXPECTED } from '../compare/workspace.js';

/** The rules, in the order they are reported. */
export const GUARD_RULES = [
  'scenario-files',
  'scenario-input',
  'override-flag',
  'unknown-files',
  'stdout-json',
  'workspace-expected',
  'canonical-log',
  'sidecars',
  'all-row-kinds',
  'secrets',
  'lone-surrogates',
] as const;
export type GuardRule = (typeof GUARD_RULES)[number];

/** One broken rule at one place. */
export interface Violation {
  rule: GuardRule;
  message: string;
  /** The scenario the violation is in, when it is in one (so `-g NAME` runs that scenario's rules). */
  scenario?: string;
}

/** Options for {@link checkFixtures}. */
export interface GuardOptions {
  /** Paths in messages are relative to this directory (default: the parent of the fixtures dir). */
  displayBase?: string;
  /** The real home directory and user name to look for (default: this machine's). */
  home?: string;
  user?: string;
  /** Secret values to look for verbatim (default: the recording key's, DEEPSEEK_API_KEY, when set). */
  secretValues?: string[];
  /**
   * The repository around the fixtures: session logs found anywhere in it (by their header row, in files
   * git tracks or would track) must be canonical too, not only those under fixtures/. Default: fixtures/ only.
   */
  repoRoot?: string;
  /** The agents a scenario may name in `"agent"` (the config's `use.agents`); unchecked when absent. */
  agents?: Readonly<Record<string, readonly string[]>>;
}

export const REQUIRED = ['input.json', 'stdout.expected.jsonl', 'session.jsonl', WORKSPACE_EXPECTED] as const;
export const OPTIONAL = ['replay.override.json'] as const;
/** The scenario whose log holds every storage row kind, with its independent raw source recording. */
export const ALL_ROW_KINDS = 'all-row-kinds';
export const ALL_ROW_KINDS_SOURCE = 'source.raw.jsonl';
/** Storage row kinds: the header row, single-event rows and packed chunk rows. */
export const ROW_KINDS = ['header', 'event', 'packed'] as const;
export const SIDECAR_NAME = /^[0-9a-f]{64}\.json$/;

/** One check run over a fixtures directory. */
export interface GuardContext {
  opts: GuardOptions;
  fixturesDir: string;
  scenariosDir: string;
  sidecarsDir: string;
  /** A path as messages show it. */
  show: (p: string) => string;
  add: (rule: GuardRule, message: string) => void;
  /** The scenario directories found (filled by the scenario-tree rules). */
  scenarioNames: string[];
  /** Sidecar hash -> the session logs referencing it (filled by the session-log rules). */
  referenced: Map<string, string[]>;
}

export function guardContext(fixturesDir: string, opts: GuardOptions, out: Violation[]): GuardContext {
  const base = opts.displayBase ?? dirname(fixturesDir);
  const show = (p: string) => relative(base, p) || '.';
  const scenariosDir = join(fixturesDir, 'scenarios');
  const scenarioPrefix = `${show(scenariosDir)}/`;
  const add = (rule: GuardRule, message: string) => {
    const scenario = message.startsWith(scenarioPrefix)
      ? /^[^/:\s]+/.exec(message.slice(scenarioPrefix.length))?.[0]
      : undefined;
    out.push(scenario ? { rule, message, scenario } : { rule, message });
  };
  return {
    opts,
    fixturesDir,
    scenariosDir,
    sidecarsDir: join(fixturesDir, 'sidecars'),
    show,
    add,
    scenarioNames: [],
    referenced: new Map(),
  };
}

export async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

export async function walkFiles(dir: string): Promise<string[]> {
  if (!(await isDir(dir))) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The storage kind of one physical row of a session log (session-log's row format). */
export function rowKind(row: unknown): (typeof ROW_KINDS)[number] | 'unknown' {
  return rowKindOf(row) ?? 'unknown';
}

/** The command that rewrites a scenario's stdout snapshot. */
export const regenerateStdout = (name: string) => `regenerate it: ${updateSnapshotsCommand(name)}`;

/**
 * A file's text, decoded leniently so the checks can go on, and the message saying where it is not
 * UTF-8 when it is not (Node would otherwise replace the bad bytes without a word).
 */
export async function readText(
  file: string,
  shown: string,
  fix: string,
): Promise<{ text: string; notUtf8?: string }> {
  const bytes = await readFile(file);
  try {
    return { text: decodeUtf8File(bytes, shown, fix) };
  } catch (err) {
    if (!(err instanceof Utf8Error)) throw err;
    return { text: bytes.toString('utf8'), notUtf8: err.message };
  }
}
