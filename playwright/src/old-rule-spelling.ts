/**
 * The earlier spelling of normalization rules (a dotted path, `name: 'cacheKey'`; decision 0013), still read for
 * the 0.x series: a config written in it loads with its rules in the one spelling, and the run warns once,
 * naming each rule and what to write instead (or `npx acp-snapshot migrate-config` to rewrite the file).
 */
import { type AgentProfile, type NormalizeRules, type Rule, ruleInOneSpelling, ruleText } from './profile.js';

/** One rule read in the earlier spelling: where it is, as written, and in the one spelling. */
export interface OldSpelling {
  at: string;
  written: unknown;
  rule: Rule;
}

function upgradeList<T>(rules: readonly T[] | undefined, at: string, found: OldSpelling[]): T[] | undefined {
  if (!rules) return undefined;
  return rules.map((raw, i) => {
    const rule = typeof raw === 'string' ? undefined : ruleInOneSpelling(raw);
    if (typeof raw === 'string' && at.endsWith('.paths') && !raw.startsWith('/')) {
      // A bare dotted path in `normalize.paths`: a bare pointer (its value becomes {{volatile}}).
      const pointer = ruleInOneSpelling({ path: raw, placeholder: '{{volatile}}' }) as { path: string };
      found.push({
        at: `${at}[${i}]`,
        written: raw,
        rule: { path: pointer.path, placeholder: '{{volatile}}' },
      });
      return pointer.path as T;
    }
    if (!rule) return raw;
    found.push({ at: `${at}[${i}]`, written: raw, rule });
    return rule as T;
  });
}

function upgradeNormalize(n: NormalizeRules, at: string, found: OldSpelling[]): NormalizeRules {
  const paths = upgradeList(n.paths, `${at}.paths`, found);
  const patterns = upgradeList(n.patterns, `${at}.patterns`, found);
  return { ...n, ...(paths ? { paths } : {}), ...(patterns ? { patterns } : {}) };
}

/** What of a config holds rules: its agents' profiles, and an HTTP model's `ids`. */
interface WithRules {
  agents: Record<string, AgentProfile>;
  model?: { kind: string; ids?: unknown[] };
}

/** The config's options with every rule in the one spelling, and the rules that were not. */
export function readOldSpelling<T extends WithRules>(opts: T): { opts: T; found: OldSpelling[] } {
  const found: OldSpelling[] = [];
  const agents = Object.fromEntries(
    Object.entries(opts.agents).map(([name, profile]) => {
      const at = `agents.${name}`;
      const normalize = profile.normalize
        ? upgradeNormalize(profile.normalize, `${at}.normalize`, found)
        : undefined;
      const requestIds = upgradeList(profile.requestIds, `${at}.requestIds`, found);
      return [
        name,
        { ...profile, ...(normalize ? { normalize } : {}), ...(requestIds ? { requestIds } : {}) },
      ];
    }),
  );
  let model = opts.model;
  if (model?.kind === 'http' && model.ids) {
    const ids = upgradeList(model.ids, 'model.ids', found);
    model = { ...model, ids };
  }
  return { opts: { ...opts, agents, ...(model ? { model } : {}) }, found };
}

/** The warning for rules read in the earlier spelling. */
export function oldSpellingWarning(found: readonly OldSpelling[]): string {
  const lines = found.map((f) => `  ${f.at}: ${writtenText(f.written)} -> ${ruleText(f.rule)}`);
  return [
    `acp-snapshot: ${found.length} normalization rule(s) in the Playwright config use the earlier spelling, read until 1.0; write each as shown,`,
    'or rewrite the file with: npx acp-snapshot migrate-config playwright.config.ts (--dry-run prints the diff first)',
    ...lines,
  ].join('\n');
}

function writtenText(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw);
  const r = raw as Record<string, unknown>;
  const parts = Object.entries(r).map(
    ([k, v]) => `${k}: ${v instanceof RegExp ? String(v) : JSON.stringify(v)}`,
  );
  return `{ ${parts.join(', ')} }`;
}

const WARNED = Symbol.for('acp-snapshot.old-rule-spelling-warned');

/**
 * Warns once per run: in Playwright's runner process only (its workers load the config too, each with the
 * runner's TEST_WORKER_INDEX unset only in the runner), and once however often that process loads the config.
 */
export function warnOldSpellingOnce(found: readonly OldSpelling[], env = process.env): void {
  if (found.length === 0 || env.TEST_WORKER_INDEX !== undefined) return;
  const g = globalThis as { [WARNED]?: boolean };
  if (g[WARNED]) return;
  g[WARNED] = true;
  console.warn(oldSpellingWarning(found));
}
