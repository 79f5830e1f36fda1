/**
 * Root placeholders a scenario author writes (`{{cwd}}`, `{{spill}}`, ...: the names of `rootMap`) in
 * prompt text, prompt content blocks and `agentConfig`, so a path such as `file://{{cwd}}/notes.txt`
 * is portable: the harness puts this run's real directories in before anything is sent.
 */
import type { Scenario } from './scenario.js';

/** The placeholders a scenario may use: the keys of `rootMap` in roots.ts (roots.test.ts ties the two). */
export const ROOT_PLACEHOLDERS = ['cwd', 'workspaceParent', 'persist', 'spill', 'home', 'root'] as const;

/** `{{name}}` with a plain identifier; `{{sessionId:1}}`-style normalization placeholders do not match. */
const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

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
  const expand = (v: unknown): unknown => {
    if (typeof v === 'string')
      return v.replace(
        PLACEHOLDER,
        (whole, name: string) => (Object.hasOwn(map, name) ? map[name] : undefined) ?? whole,
      );
    if (Array.isArray(v)) return v.map(expand);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]));
    return v;
  };
  return expand(value) as T;
}

/** The scenario with its prompts' text and content and its agentConfig expanded for this run's roots. */
export function expandScenarioRoots(
  scenario: Scenario,
  map: Readonly<Record<string, string | undefined>>,
): Scenario {
  const steps = scenario.steps.map((s) => {
    if (s.op !== 'prompt') return s;
    return {
      ...s,
      ...(s.text !== undefined ? { text: expandRootPlaceholders(s.text, map) } : {}),
      ...(s.content !== undefined ? { content: expandRootPlaceholders(s.content, map) } : {}),
    };
  });
  return {
    ...scenario,
    steps,
    ...(scenario.agentConfig ? { agentConfig: expandRootPlaceholders(scenario.agentConfig, map) } : {}),
  };
}
