// `npm run bench -- suite`: the snapshot suite's wall time over the committed corpus (2 workers, median of 3),
// the median per-scenario test time, and the harness overhead (test time minus the agent processes' lifetime).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, writeResults } from './_results.js';

interface JsonTest {
  results: Array<{
    duration: number;
    status: string;
    annotations?: Array<{ type: string; description?: string }>;
  }>;
}
interface JsonSuite {
  suites?: JsonSuite[];
  specs?: Array<{ title: string; tests: JsonTest[] }>;
}

function specs(suite: JsonSuite): Array<{ title: string; tests: JsonTest[] }> {
  return [...(suite.specs ?? []), ...(suite.suites ?? []).flatMap(specs)];
}

/** Runs the benchmark and writes bench-results/suite.json. */
export async function run(): Promise<void> {
  const walls: number[] = [];
  const perScenario: number[] = [];
  const overhead: number[] = [];
  let scenarios = 0;
  const out = mkdtempSync(join(tmpdir(), 'bench-suite-'));
  try {
    for (let i = 0; i < 3; i++) {
      const report = join(out, `report-${i}.json`);
      const started = Date.now();
      const r = spawnSync(
        process.execPath,
        ['node_modules/@playwright/test/cli.js', 'test', '--workers=2', '--reporter=json'],
        {
          env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      walls.push(Date.now() - started);
      if (r.status !== 0)
        throw new Error(`bench suite: npx playwright test failed (exit ${r.status}); fix the suite first`);
      const json = JSON.parse(readFileSync(report, 'utf8')) as { suites: JsonSuite[] };
      const replay = json.suites.flatMap(specs).flatMap((s) => s.tests.flatMap((t) => t.results));
      const timed = replay.filter((res) => res.annotations?.some((a) => a.type === 'agent-process-ms'));
      scenarios = timed.length;
      for (const res of timed) {
        const agentMs = Number(res.annotations!.find((a) => a.type === 'agent-process-ms')!.description);
        perScenario.push(res.duration);
        overhead.push(res.duration - agentMs);
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  writeResults('suite', {
    scenarios,
    suiteWallMs: median(walls),
    perScenarioMedianMs: perScenario.length ? median(perScenario) : 0,
    harnessOverheadMs: overhead.length ? median(overhead) : 0,
  });
}
