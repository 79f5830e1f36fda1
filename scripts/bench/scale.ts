// `npm run bench -- scale`: does the suite's cost per scenario hold as the corpus grows? A synthetic corpus of
// SCALE scenarios (the committed ones copied round-robin under new names, with the committed sidecars, in a temp
// fixtures directory named by ACP_SNAPSHOT_FIXTURES) is replayed like the committed corpus, side by side.
// - perScenarioCostRatio: (replay wall ÷ scenarios) of the synthetic corpus ÷ the same of the committed one.
// - guardsMs: the fixture guards (checkFixtures, what `npm run check` and the guards project run) over the
//   synthetic corpus, in this process, median of 3 (target ≤ 2,000 ms for 200 scenarios).
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ALL_ROW_KINDS,
  checkFixtures,
  discoverScenarios,
  fixturesDir,
  repoGuardOptions,
  SDK_EXAMPLE_AGENT,
} from '@acp-snapshot/playwright/testing';
import { median, writeResults } from './_results.js';
import { playwright } from './suite.js';

const SCALE = 200;

/** A fixtures directory of `count` scenarios: copies of the committed ones, `s001-hello`, `s002-read-file`... */
export function syntheticCorpus(dir: string, count: number): string {
  const from = fixturesDir();
  // The all-row-kinds scenario is one of a kind by rule (its name allows its extra source file): not copied.
  const names = discoverScenarios(from).filter((n) => n !== ALL_ROW_KINDS);
  if (names.length === 0) throw new Error(`bench scale: no scenarios in ${from}`);
  const fixtures = join(dir, 'fixtures');
  mkdirSync(join(fixtures, 'scenarios'), { recursive: true });
  cpSync(join(from, 'sidecars'), join(fixtures, 'sidecars'), { recursive: true });
  for (let i = 0; i < count; i++) {
    const name = names[i % names.length]!;
    const copy = `s${String(i + 1).padStart(3, '0')}-${name}`;
    cpSync(join(from, 'scenarios', name), join(fixtures, 'scenarios', copy), { recursive: true });
  }
  return fixtures;
}

export async function run(): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  try {
    const fixtures = syntheticCorpus(out, SCALE);
    const found = discoverScenarios(fixtures).length;
    if (found !== SCALE)
      throw new Error(`bench scale: the synthetic corpus has ${found} scenarios, not ${SCALE}`);
    const guardRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const violations = await checkFixtures(
        fixtures,
        repoGuardOptions(fixtures, { 'sdk-example': [process.execPath, SDK_EXAMPLE_AGENT] }),
      );
      guardRuns.push(performance.now() - started);
      if (violations.length > 0)
        throw new Error(
          `bench scale: guards on the synthetic corpus: ${violations[0]!.rule}: ${violations[0]!.message}`,
        );
    }
    const committed = playwright(['--project=replay'], join(out, 'committed'));
    const synthetic = playwright(['--project=replay'], join(out, 'synthetic'), {
      ACP_SNAPSHOT_FIXTURES: fixtures,
    });
    for (const [what, r] of [
      ['committed', committed],
      ['synthetic', synthetic],
    ] as const)
      if (r.status !== 0)
        throw new Error(`bench scale: the ${what} corpus's replay run failed (exit ${r.status})`);
    const perScenario = (r: typeof committed) => r.wallMs / r.results.length;
    writeResults('scale', {
      scenarios: synthetic.results.length,
      committedScenarios: committed.results.length,
      committedPerScenarioWallMs: Math.round(perScenario(committed)),
      perScenarioWallMs: Math.round(perScenario(synthetic)),
      perScenarioCostRatio: Math.round((perScenario(synthetic) / perScenario(committed)) * 100) / 100,
      guardsMs: Math.round(median(guardRuns)),
    });
    console.log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
