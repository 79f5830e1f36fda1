/**
 * The workspace as a compared surface: what the agent left in the seeded directory against the
 * scenario's seed `workspace/` (added, changed and deleted entries), normalized like stdout and stored
 * as `workspace.expected.json`, one reviewable file per scenario. Pure, except {@link captureWorkspace}.
 */

import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';
import { updateSnapshotsCommand } from '@acp-snapshot/core';
import { z } from 'zod';
import type { DriverResult } from '../driver/driver.js';
import { Normalizer } from '../normalize/normalize.js';
import { firstDifferingLine } from '../report/diff.js';
import { rootMap, type TestRoots } from '../roots/roots.js';
import { readTree, type Tree, type TreeEntry, type TreeLimits } from './workspace-tree.js';

/** The fixture file of the workspace surface. */
export const WORKSPACE_EXPECTED = 'workspace.expected.json';

/** What an added or changed entry holds now. Text is an array of lines: `lines.join('\n')` is the content. */
export type WorkspaceContent =
  | { kind: 'text'; lines: string[]; executable?: true }
  | { kind: 'binary'; size: number; sha256: string; executable?: true }
  | { kind: 'symlink'; target: string }
  | { kind: 'directory' }
  | { kind: 'other'; type: string };

/** One difference from the seed. Empty directories are entries, with a path ending in `/`. */
export type WorkspaceChange =
  | ({ path: string; change: 'added' | 'changed' } & WorkspaceContent)
  | { path: string; change: 'deleted' };

/** The content of `workspace.expected.json`. */
export interface WorkspaceExpectation {
  files: WorkspaceChange[];
}

const executable = z.literal(true).optional();
const present = { path: z.string().min(1), change: z.enum(['added', 'changed']) };
const deletedSchema = z.strictObject({ path: z.string().min(1), change: z.literal('deleted') });
const presentSchema = z.discriminatedUnion('kind', [
  z.strictObject({ ...present, kind: z.literal('text'), lines: z.array(z.string()).min(1), executable }),
  z.strictObject({
    ...present,
    kind: z.literal('binary'),
    size: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 is 64 lowercase hex digits'),
    executable,
  }),
  z.strictObject({ ...present, kind: z.literal('symlink'), target: z.string() }),
  z.strictObject({ ...present, kind: z.literal('directory') }),
  z.strictObject({ ...present, kind: z.literal('other'), type: z.string() }),
]);
const expectationSchema = z.strictObject({ files: z.array(z.unknown()) });

/** A `workspace.expected.json` that cannot be read; names the file and the entry. */
export class WorkspaceFileError extends Error {
  override name = 'WorkspaceFileError';
}

/** The entry with its keys in the one fixed order (path, change, kind, the kind's fields, executable). */
function canonicalChange(c: WorkspaceChange): WorkspaceChange {
  if (c.change === 'deleted') return { path: c.path, change: c.change };
  const head = { path: c.path, change: c.change };
  const x = 'executable' in c && c.executable === true ? { executable: true as const } : {};
  switch (c.kind) {
    case 'text':
      return { ...head, kind: c.kind, lines: c.lines, ...x };
    case 'binary':
      return { ...head, kind: c.kind, size: c.size, sha256: c.sha256, ...x };
    case 'symlink':
      return { ...head, kind: c.kind, target: c.target };
    case 'directory':
      return { ...head, kind: c.kind };
    case 'other':
      return { ...head, kind: c.kind, type: c.type };
  }
}

/** Code-unit order, so the order does not depend on a locale. */
const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** The canonical text: pretty JSON, entries sorted by path, fixed key order, a final newline. */
export function serializeWorkspace(w: WorkspaceExpectation): string {
  return `${JSON.stringify({ files: [...w.files].sort(byPath).map(canonicalChange) }, null, 2)}\n`;
}

/** Parses a `workspace.expected.json` text; a bad entry is a WorkspaceFileError naming `file` and the entry. */
export function parseWorkspace(text: string, file: string): WorkspaceExpectation {
  const fix = `rewrite it: ${updateSnapshotsCommand('NAME')}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new WorkspaceFileError(`${file}: not JSON (${(e as Error).message}); ${fix}`);
  }
  const top = expectationSchema.safeParse(raw);
  if (!top.success) {
    throw new WorkspaceFileError(`${file}: must be an object with one key, "files" (an array); ${fix}`);
  }
  const files = top.data.files.map((entry, i) => {
    const deleted = (entry as { change?: unknown } | null)?.change === 'deleted';
    const r = (deleted ? deletedSchema : presentSchema).safeParse(entry);
    if (!r.success) {
      const issue = r.error.issues[0];
      const where = issue?.path.length ? `.${issue.path.join('.')}` : '';
      throw new WorkspaceFileError(
        `${file}: files[${i}]${where}: ${issue?.message ?? 'invalid entry'} (an entry is {path, change: added|changed|deleted, kind: text|binary|symlink|directory|other, ...}); ${fix}`,
      );
    }
    return r.data as WorkspaceChange;
  });
  const seen = new Set<string>();
  for (const [i, f] of files.entries()) {
    if (seen.has(f.path))
      throw new WorkspaceFileError(
        `${file}: files[${i}].path: ${JSON.stringify(f.path)} is listed twice; ${fix}`,
      );
    seen.add(f.path);
  }
  return { files };
}

/** Why a `workspace.expected.json` text is not canonical (or not valid), or undefined when it is. */
export function workspaceFileProblem(text: string, file: string, name: string): string | undefined {
  const fix = `rewrite it: ${updateSnapshotsCommand(name)}`;
  let parsed: WorkspaceExpectation;
  try {
    parsed = parseWorkspace(text, file);
  } catch (e) {
    return (e as Error).message.replace('-g NAME', `-g ${name}`);
  }
  const line = firstDifferingLine(serializeWorkspace(parsed), text);
  if (line === undefined) return undefined;
  return `${file}:${line}: not canonical (pretty JSON with 2-space indent, entries sorted by path, keys in the fixed order path, change, kind, ...; a final newline); ${fix}`;
}

/** How file content is normalized: one surface's placeholders (`{{cwd}}`, `{{sessionId:1}}`...). */
export type NormalizeText = (text: string) => string;

function contentOf(e: TreeEntry, normalize: NormalizeText): WorkspaceContent {
  switch (e.kind) {
    case 'file': {
      const x = e.executable ? { executable: true as const } : {};
      if (isUtf8(e.bytes) && !e.bytes.includes(0))
        return { kind: 'text', lines: normalize(e.bytes.toString('utf8')).split('\n'), ...x };
      const sha256 = createHash('sha256').update(e.bytes).digest('hex');
      return { kind: 'binary', size: e.bytes.length, sha256, ...x };
    }
    case 'symlink':
      return { kind: 'symlink', target: normalize(e.target) };
    case 'directory':
      return { kind: 'directory' };
    case 'other':
      return { kind: 'other', type: e.type };
  }
}

function sameEntry(a: TreeEntry, b: TreeEntry): boolean {
  if (a.kind === 'file' && b.kind === 'file') return a.executable === b.executable && a.bytes.equals(b.bytes);
  if (a.kind === 'symlink' && b.kind === 'symlink') return a.target === b.target;
  if (a.kind === 'other' && b.kind === 'other') return a.type === b.type;
  return a.kind === b.kind;
}

/**
 * The compared entries of a tree: files, links, special files and empty directories (as `dir/`); a
 * directory with entries is implied by them. `skip` are directories the harness made (the session cwd
 * inside a workspace parent), never the agent's doing.
 */
function comparable(tree: Tree, skip: ReadonlySet<string>): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  for (const [path, e] of tree) {
    if (e.kind !== 'directory') out.set(path, e);
    else if (e.empty && !skip.has(path)) out.set(`${path}/`, e);
  }
  return out;
}

/** The differences of `after` from `seed`, sorted by path; text content normalized by `normalize`. */
export function diffTrees(
  seed: Tree,
  after: Tree,
  normalize: NormalizeText,
  skip: ReadonlySet<string> = new Set(),
): WorkspaceChange[] {
  const s = comparable(seed, skip);
  const a = comparable(after, skip);
  const out: WorkspaceChange[] = [];
  for (const path of new Set([...s.keys(), ...a.keys()])) {
    const before = s.get(path);
    const now = a.get(path);
    if (now === undefined) out.push({ path, change: 'deleted' });
    else if (before === undefined) out.push({ path, change: 'added', ...contentOf(now, normalize) });
    else if (!sameEntry(before, now)) out.push({ path, change: 'changed', ...contentOf(now, normalize) });
  }
  return out.sort(byPath);
}

/** The directories the harness creates inside the seeded directory: the cwd and its parents below it. */
export function harnessDirs(seeded: string, cwd: string): Set<string> {
  const out = new Set<string>();
  const rel = relative(seeded, cwd).split(sep).filter(Boolean);
  for (let i = 1; i <= rel.length; i++) out.add(rel.slice(0, i).join('/'));
  return out;
}

/** The first difference between two workspace expectations, for a failure message; undefined when equal. */
export function firstWorkspaceDifference(
  expected: WorkspaceExpectation,
  actual: WorkspaceExpectation,
): string | undefined {
  const want = new Map(expected.files.map((f) => [f.path, canonicalChange(f)]));
  const got = new Map(actual.files.map((f) => [f.path, canonicalChange(f)]));
  for (const path of [...new Set([...want.keys(), ...got.keys()])].sort()) {
    const w = want.get(path);
    const g = got.get(path);
    if (JSON.stringify(w) === JSON.stringify(g)) continue;
    if (!w) return `${path}: ${g!.change} by the agent, but the expectation does not list it`;
    if (!g) return `${path}: expected ${w.change}, but the agent left it as in the seed`;
    if (w.change === 'deleted' || g.change === 'deleted' || w.change !== g.change || w.kind !== g.kind)
      return `${path}: expected ${changeLabel(w)}, got ${changeLabel(g)}`;
    if (w.kind === 'text' && g.kind === 'text') {
      let i = 0;
      while (i < w.lines.length && w.lines[i] === g.lines[i]) i++;
      if (i < w.lines.length || i < g.lines.length) {
        const show = (l: string | undefined) => (l === undefined ? '(no such line)' : JSON.stringify(l));
        return `${path} (${g.change}), line ${i + 1}: expected ${show(w.lines[i])}, got ${show(g.lines[i])}`;
      }
    }
    return `${path}: expected ${JSON.stringify(w)}, got ${JSON.stringify(g)}`;
  }
  return undefined;
}

function changeLabel(c: WorkspaceChange): string {
  return c.change === 'deleted' ? 'deleted' : `${c.change} (${c.kind})`;
}

/**
 * The failure message of a workspace that differs from `workspace.expected.json`: the first
 * difference (file, line) and the command that accepts it. `expectedText` undefined: the file is missing.
 */
export function workspaceMismatchMessage(
  name: string,
  file: string,
  expectedText: string | undefined,
  actualText: string,
): string {
  const fix = `If the change is intended, run \`${updateSnapshotsCommand(name)}\`.`;
  if (expectedText === undefined) return `${file} is missing. ${fix}`;
  let first: string | undefined;
  try {
    first = firstWorkspaceDifference(
      parseWorkspace(expectedText, file),
      parseWorkspace(actualText, 'the run'),
    );
  } catch (e) {
    first = (e as Error).message;
  }
  return `${name}: the workspace the agent left differs from ${file}${first ? `: ${first}` : ''}. ${fix}`;
}

/** What {@link captureWorkspace} needs of a run. */
export interface CaptureInput {
  roots: TestRoots;
  /** The scenario's seed `workspace/` (may not exist: then every entry is added). */
  seedDir: string;
  /** The run's stdout, so session ids in files get the numbers stdout gives them. */
  stdout?: DriverResult['stdout'];
  limits?: TreeLimits;
}

/**
 * The `workspace.expected.json` text of a finished run: the seeded directory (the workspace parent,
 * else the cwd) against the seed, normalized with the placeholders stdout uses.
 */
export async function captureWorkspace(input: CaptureInput): Promise<string> {
  const { roots } = input;
  const seeded = roots.workspaceParent ?? roots.cwd;
  const [seed, after] = await Promise.all([
    readTree(input.seedDir, input.limits),
    readTree(seeded, input.limits),
  ]);
  const n = new Normalizer({ roots: rootMap(roots), aliases: roots.aliases });
  for (const line of input.stdout ?? []) {
    try {
      n.collectSessionIds(JSON.parse(line.text));
    } catch {
      // Not JSON: stdout's own comparison reports it.
    }
  }
  const files = diffTrees(seed, after, (t) => n.string(t), harnessDirs(seeded, roots.cwd));
  return serializeWorkspace({ files });
}
