import { hydrateRoots, MAX_JSON_DEPTH, placeholderPattern, ROOT_NAMES } from '@acp-snapshot/core';
/**
 * Root placeholders a scenario author writes (`{{cwd}}`, `{{spill}}`, ...: the names of `rootMap`) in
 * prompt text, prompt content blocks, a `list_sessions` or `new_session` cwd and `agentConfig`, so a path such as `file://{{cwd}}/notes.txt`
 * is portable: the harness puts this run's real directories in before anything is sent.
 */

/** The placeholders a scenario may use: the one list of root names (session-log roots.ts). */
export const ROOT_PLACEHOLDERS = ROOT_NAMES;

/** `{{name}}` with a plain identifier; `{{sessionId:1}}`-style normalization placeholders do not match. */
const PLACEHOLDER = placeholderPattern('', 'g');

/** One placeholder a scenario may not use, where it is (a path under the scenario document). */
export interface PlaceholderIssue {
  path: (string | number)[];
  message: string;
}

/**
 * The unknown placeholders in every string of `value` (keys too are not expanded, so they are not
 * checked). `{{workspaceParent}}` is known only when the scenario sets `flags.workspaceParent`.
 */
export function placeholderIssues(
  value: unknown,
  path: (string | number)[],
  opts: { workspaceParent: boolean },
): PlaceholderIssue[] {
  const known = ROOT_PLACEHOLDERS.filter((n) => n !== 'workspaceParent' || opts.workspaceParent);
  const issues: PlaceholderIssue[] = [];
  const visit = (v: unknown, at: (string | number)[]) => {
    // A hostile input.json may nest far deeper than any scenario: refuse it rather than overflow the stack.
    if (at.length - path.length > MAX_JSON_DEPTH) {
      issues.push({ path: at, message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
      return;
    }
    if (typeof v === 'string') {
      for (const m of v.matchAll(PLACEHOLDER)) {
        const name = m[1]!;
        if ((known as readonly string[]).includes(name)) continue;
        const hint =
          name === 'workspaceParent'
            ? ' ({{workspaceParent}} needs flags.workspaceParent)'
            : ` (known: ${known.map((k) => `{{${k}}}`).join(', ')})`;
        issues.push({ path: at, message: `unknown root placeholder {{${name}}}${hint}` });
      }
    } else if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) visit(x, [...at, i]);
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, [...at, k]);
  };
  visit(value, path);
  return issues;
}

/** `value` with every root placeholder in its strings replaced by the run's directory (`map` from rootMap). */
export function expandRootPlaceholders<T>(value: T, map: Readonly<Record<string, string | undefined>>): T {
  // The inverse of the one root replacement: what replay does to recorded output (roots.ts).
  return hydrateRoots(value, map);
}
