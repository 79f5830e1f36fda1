/**
 * The compared surfaces (the ACP wire, the session log, the workspace) as text, and the one comparison of
 * a surface with its snapshot. Every judge of a run uses these: the replay verdict of the corpus and
 * `toMatchAcpSnapshot` (verdict.ts), and the failure artifacts (which diff what the comparison saw). Pure.
 */

import { cutText } from '@acp-snapshot/core';
import { NormalizeError, normalizeJsonlText, normalizeStdout } from '../normalize/normalize.js';
import { applyRules, type NormalizeRules } from '../profile.js';
import { rootMap, type TestRoots } from '../roots/roots.js';
import { type Cause, jsonLinesCause, logCause, workspaceCause } from './causes.js';
import { adoptRecordedProvider } from './harvest.js';

/** A compared surface. */
export type Surface = 'stdout' | 'workspace' | 'log' | 'mcp';

/**
 * The stdout snapshot text: every process's lines normalized (roots replaced, ids numbered), then the agent
 * profile's `normalize` rules, as newline-terminated JSON lines. The one place those rules are applied.
 */
export function stdoutSnapshotText(
  stdout: ReadonlyArray<{ text: string; process: number }>,
  roots: TestRoots,
  rules?: NormalizeRules,
): string {
  const normalized = normalizeStdout(stdout, { roots: rootMap(roots), aliases: roots.aliases });
  const lines = applyRules(normalized, rules);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/**
 * The MCP traffic snapshot text (already normalized like the wire) with the profile's `normalize.patterns`
 * applied to each line: what the agent sends its MCP servers carries its own volatile values (codex's call ids
 * and turn metadata). Its paths point into stdout messages, so only the patterns apply here.
 */
export function mcpSnapshotText(text: string, rules?: NormalizeRules): string {
  if (!rules?.patterns?.length || text === '') return text;
  const lines = applyRules(text.replace(/\n$/, '').split('\n'), { patterns: rules.patterns });
  return `${lines.join('\n')}\n`;
}

/** Lines of a stdout snapshot text that are not JSON, as "line N: ..." messages. */
export function nonJsonLines(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    try {
      JSON.parse(line);
    } catch {
      out.push(`line ${i + 1}: ${JSON.stringify(cutText(line, 120))}`);
    }
  });
  return out;
}

/**
 * A run's log as compared with its snapshot, before normalization: a replayed run's header names the replay
 * plugin, so it adopts the recorded provider; a recording keeps its own.
 */
export function liveLog(live: string, recorded: string | undefined, replayed: boolean): string {
  return replayed ? adoptRecordedProvider(live, recorded) : live;
}

/** A log text as the comparison sees it: normalized; a text normalization refuses is compared as it is. */
export function comparedLogText(text: string): string {
  try {
    return normalizeJsonlText(text);
  } catch (e) {
    if (e instanceof NormalizeError) return text;
    throw e;
  }
}

/** One surface compared with its snapshot. */
export interface SurfaceComparison {
  surface: Surface;
  /** The snapshot as compared (undefined: there is none). */
  expected: string | undefined;
  /** This run's text as compared: what a snapshot of it holds. */
  actual: string;
  equal: boolean;
  /** What differs, for the summary and the messages (a JSON-lines surface names its first changed field). */
  cause?: Cause;
}

/** Options of {@link compareSurface}. */
export interface CompareOptions {
  /** The run replayed the model (its log adopts the recorded provider). */
  replayed: boolean;
  /** The scenario's sidecars and this run's: a log difference in the system prompt is told from them. */
  sidecars?: { dir: string; live: Record<string, string> };
}

/**
 * Compares one surface of a run with its snapshot: the one definition of "equal". Stdout and the workspace
 * compare as written; the log compares normalized, a replayed one with the recorded provider.
 */
export function compareSurface(
  surface: Surface,
  expected: string | undefined,
  actual: string,
  opts: CompareOptions,
): SurfaceComparison {
  if (surface === 'log') {
    actual = comparedLogText(liveLog(actual, expected, opts.replayed));
    expected = expected === undefined ? undefined : comparedLogText(expected);
  }
  if (expected === actual) return { surface, expected, actual, equal: true };
  const cause =
    expected === undefined && surface !== 'workspace'
      ? undefined
      : surface === 'workspace'
        ? workspaceCause(expected, actual)
        : surface === 'log' && opts.sidecars
          ? logCause(expected!, actual, opts.sidecars)
          : jsonLinesCause(surface === 'mcp' ? 'mcp' : 'stdout', expected!, actual);
  return { surface, expected, actual, equal: false, ...(cause ? { cause } : {}) };
}
