/**
 * Folder import rules, like Playwright's DEPS.list: in a package whose runtime code spans several folders, each
 * folder holds a `DEPS.list` naming the other folders (and single files) of its package its files may import.
 * Files of one folder may always import each other; tests and `testing/` helpers are not held to the rules.
 * docs/decisions/0027-folder-import-rules.md says why, docs/architecture.md section 10 how to read one.
 *
 * The format: `#` starts a comment; `[*]` (the default before any section) holds what every file of the folder
 * may import, `[name.ts]` what that one file may import besides; an entry is a path relative to the folder,
 * `../roots/` for the files directly in a folder, `../profile.ts` for one file.
 */
import { dirname, join, posix } from 'node:path';

export const RULES_FILE = 'DEPS.list';

/** One allowed import: the line that says so and the repository path it names (a folder ends in `/`). */
export interface RuleEntry {
  line: number;
  text: string;
  target: string;
}

/** A folder's DEPS.list, parsed. */
export interface FolderRules {
  /** The DEPS.list's repository path. */
  file: string;
  folder: string;
  /** `[*]`: what every file of the folder may import. */
  all: RuleEntry[];
  /** `[name.ts]`: what that file may import besides `[*]`, by its repository path. */
  byFile: Map<string, RuleEntry[]>;
  /** Line of each `[name.ts]` section, by the file's repository path. */
  sections: Map<string, number>;
}

/** A DEPS.list line that is no rule; the message names the file and line and what a rule looks like. */
export class FolderRulesError extends Error {
  override name = 'FolderRulesError';
}

/** Parses the DEPS.list at repository path `file`. */
export function parseFolderRules(file: string, text: string): FolderRules {
  const folder = dirname(file);
  const rules: FolderRules = { file, folder, all: [], byFile: new Map(), sections: new Map() };
  let current = rules.all;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      const name = section[1]!;
      if (name === '*') current = rules.all;
      else {
        const path = join(folder, name);
        current = rules.byFile.get(path) ?? [];
        rules.byFile.set(path, current);
        rules.sections.set(path, i + 1);
      }
      continue;
    }
    if (!/^\.\.?\//.test(line) || /\s/.test(line))
      throw new FolderRulesError(
        `${file}:${i + 1}: ${JSON.stringify(line)} is no rule: write a section ([*], [name.ts]) or a path relative ` +
          'to the folder, one a line (../roots/ for a folder, ../profile.ts for a file)',
      );
    const target = posix.normalize(`${folder}/${line}`);
    current.push({
      line: i + 1,
      text: line,
      target: line.endsWith('/') ? `${target.replace(/\/$/, '')}/` : target,
    });
  }
  return rules;
}

/** The rule that lets `from` import `target` (both repository paths), if any. */
export function allowingRule(rules: FolderRules, from: string, target: string): RuleEntry | undefined {
  const entries = [...rules.all, ...(rules.byFile.get(from) ?? [])];
  return entries.find((e) =>
    e.target.endsWith('/') ? `${dirname(target)}/` === e.target : target === e.target,
  );
}

/**
 * Why `imp` (a relative import of `from`, resolved to the repository path `target`) breaks its folder's rules,
 * naming the file, the import and the rule; undefined when the rules allow it or it stays in its folder.
 */
export function folderRuleViolation(
  rules: FolderRules,
  imp: { file: string; line: number; spec: string },
  target: string,
): string | undefined {
  if (dirname(target) === rules.folder || allowingRule(rules, imp.file, target)) return undefined;
  const entries = [...rules.all, ...(rules.byFile.get(imp.file) ?? [])];
  const allowed =
    entries.length > 0 ? `allows ${entries.map((e) => e.text).join(', ')}` : 'allows no other folder';
  return (
    `${imp.file}:${imp.line}: '${imp.spec}': ${rules.folder}/ may not import ${target} (${rules.file} ${allowed}); ` +
    `name it there if ${rules.folder}/ sits above it, or move the code`
  );
}

/**
 * The DEPS.list entry for importing `target` from `folder`: the file when it lies in a folder above
 * (`../profile.ts`: the parent folder's other files may sit above), else its folder (`../roots/`, `./checks/`).
 */
export function entryFor(folder: string, target: string): string {
  const rel = posix.relative(folder, dirname(target));
  if (/^(\.\.\/?)+$/.test(rel)) return posix.relative(folder, target);
  return rel.startsWith('..') ? `${rel}/` : `./${rel}/`;
}

/**
 * The graph the rules declare, for the cycle check: a node per folder (its `[*]`) and per file with a section
 * of its own (its section and `[*]`), an edge per entry to the folder it names or to the file when that file
 * has a section. A cycle is a folder below itself: `[*]` rules say which folders sit below which.
 */
export function declaredGraph(all: readonly FolderRules[]): Map<string, string[]> {
  const sectioned = new Set(all.flatMap((r) => [...r.byFile.keys()]));
  const node = (target: string) =>
    target.endsWith('/') ? target.replace(/\/$/, '') : sectioned.has(target) ? target : dirname(target);
  const graph = new Map<string, string[]>();
  for (const rules of all) {
    const common = rules.all.map((e) => node(e.target));
    graph.set(rules.folder, common);
    for (const [file, entries] of rules.byFile)
      graph.set(file, [...common, ...entries.map((e) => node(e.target))]);
  }
  return graph;
}
