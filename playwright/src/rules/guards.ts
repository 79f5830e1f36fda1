/**
 * The fixture-tree rules (docs/architecture.md, "Fixture-tree rules"), a registry of rule modules run in
 * order over one context: every rule returns violations whose message is what a user sees, naming the file
 * (and line) and what to do next.
 */
import { sidecarHash } from '@acp-snapshot/core';
import { checkAllRowKinds } from './all-row-kinds.js';
import { type GuardContext, type GuardOptions, guardContext, type Violation } from './guard-context.js';
import { loneSurrogateProblems } from './lone-surrogate-guard.js';
import { checkScenarioTree } from './scenario-tree.js';
import { checkSecrets } from './secrets.js';
import { checkSessionLogs } from './session-logs.js';
import { checkSidecars } from './sidecars.js';

export {
  ALL_ROW_KINDS,
  ALL_ROW_KINDS_SOURCE,
  GUARD_RULES,
  type GuardOptions,
  type GuardRule,
  ROW_KINDS,
  rowKind,
  type Violation,
} from './guard-context.js';
export { sidecarHash };

/** The rule modules, in the order they report (later ones read what earlier ones found). */
const RULE_MODULES: ReadonlyArray<(ctx: GuardContext) => Promise<unknown>> = [
  checkSessionLogs,
  checkSidecars,
  checkAllRowKinds,
  checkSecrets,
  async (ctx) => {
    for (const message of await loneSurrogateProblems(ctx.fixturesDir, ctx.show))
      ctx.add('lone-surrogates', message);
  },
];

/** Runs every guard over a fixtures directory (`fixtures/`) and returns all violations. */
export async function checkFixtures(fixturesDir: string, opts: GuardOptions = {}): Promise<Violation[]> {
  const out: Violation[] = [];
  const ctx = guardContext(fixturesDir, opts, out);
  // Without a fixtures directory nothing else can be checked.
  if (!(await checkScenarioTree(ctx))) return out;
  for (const rule of RULE_MODULES) await rule(ctx);
  return out;
}
