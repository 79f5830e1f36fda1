// `npm run bench -- suite`: the snapshot suite over the committed corpus (2 workers).
// - suiteWallMs: `npx playwright test` (guards + replay), one run.
// - perScenarioWallMs: `npx playwright test --project=replay` wall ÷ scenarios.
// - perScenarioMedianMs, harnessOverheadMs: per test, its duration and its duration minus its agent processes'
//   lifetime (the replay spec's `agent-process-ms` annotation), medians over the green replay run.
// - redRunRatio: the same replay run with one word of our agent's system prompt changed (a copy of agent/dist
//   and agent/config.json, named by ACP_SNAPSHOT_AGENT_DIST), so every scenario of our agent drifts and fails,
//   ÷ the green replay wall. workerStartMs: what a test that starts in a fresh worker (a failed test's worker is
//   replaced) waits for it, from the red run's report. workerStartFloorMs: the same wait in a bare Playwright
//   project beside this one (ESM, one worker, tests that fail at once and import nothing): what Playwright itself
//   costs per failing test, the floor under workerStartMs and so under redRunRatio.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, writeResults } from './_results.js';

export interface JsonResult {
  duration: number;
  status: string;
  startTime: string;
  workerIndex: number;
  parallelIndex: number;
  annotations?: Array<{ type: string; description?: string }>;
}
interface JsonSuite {
  suites?: JsonSuite[];
  specs?: Array<{ title: string; tests: Array<{ projectName: string; results: JsonResult[] }> }>;
}

function specs(suite: JsonSuite): NonNullable<JsonSuite['specs']> {
  return [...(suite.specs ?? []), ...(suite.suites ?? []).flatMap(specs)];
}

/** The results of every test in a JSON report. */
export function reportResults(reportFile: string): JsonResult[] {
  const json = JSON.parse(readFileSync(reportFile, 'utf8')) as { suites: JsonSuite[] };
  return json.suites.flatMap(specs).flatMap((s) => s.tests.flatMap((t) => t.results));
}

/** The results of one project's tests in a JSON report. */
export function projectResults(reportFile: string, project: string): JsonResult[] {
  const json = JSON.parse(readFileSync(reportFile, 'utf8')) as { suites: JsonSuite[] };
  return json.suites
    .flatMap(specs)
    .flatMap((s) => s.tests.filter((t) => t.projectName === project).flatMap((t) => t.results));
}

interface Run {
  wallMs: number;
  status: number | null;
  results: JsonResult[];
}

/** Runs Playwright with `args` (2 workers, json reporter into `dir`); ACP_SNAPSHOT_RESULTS keeps its reports apart. */
export function playwright(args: string[], dir: string, env: NodeJS.ProcessEnv = {}): Run {
  mkdirSync(dir, { recursive: true });
  const report = join(dir, 'report.json');
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    ['node_modules/@playwright/test/cli.js', 'test', '--workers=2', '--reporter=json', ...args],
    {
      env: { ...process.env, ...env, ACP_SNAPSHOT_RESULTS: dir, PLAYWRIGHT_JSON_OUTPUT_NAME: report },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const wallMs = Date.now() - started;
  return { wallMs, status: r.status, results: projectResults(report, 'replay') };
}

/** A copy of agent/dist beside a config.json whose system prompt differs from the built-in one by one word. */
function redAgent(dir: string): string {
  const agentDir = join(dir, 'agent');
  cpSync('agent/dist', join(agentDir, 'dist'), { recursive: true });
  const config = JSON.parse(readFileSync('agent/config.json', 'utf8')) as Record<string, unknown>;
  const source = readFileSync('agent/src/system-prompt.ts', 'utf8');
  const prompt = /const BASE_PROMPT = `([^`]*)`/.exec(source)?.[1];
  if (!prompt?.includes('careful')) throw new Error('bench suite: the built-in system prompt was not found');
  config.systemPrompt = prompt.replace('careful', 'thorough');
  writeFileSync(join(agentDir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  return join(agentDir, 'dist');
}

const agentMs = (r: JsonResult) =>
  Number(r.annotations?.find((a) => a.type === 'agent-process-ms')?.description ?? Number.NaN);

/**
 * For each test that ran in a fresh worker other than the first ones, the time between the previous test's end
 * in its slot (parallelIndex) and its own start: the worker's start-up as a test pays it.
 */
export function freshWorkerGaps(results: JsonResult[]): number[] {
  const bySlot = new Map<number, JsonResult[]>();
  for (const r of results) bySlot.set(r.parallelIndex, [...(bySlot.get(r.parallelIndex) ?? []), r]);
  const gaps: number[] = [];
  for (const slot of bySlot.values()) {
    slot.sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
    for (let i = 1; i < slot.length; i++) {
      const prev = slot[i - 1]!;
      if (slot[i]!.workerIndex === prev.workerIndex) continue;
      gaps.push(Date.parse(slot[i]!.startTime) - (Date.parse(prev.startTime) + prev.duration));
    }
  }
  return gaps;
}

/**
 * workerStartFloorMs: a bare project (in .tmp/ so it resolves this repository's @playwright/test) of tests
 * that fail at once, on one worker: every test after the first starts in a fresh worker.
 */
export function workerStartFloor(): number {
  mkdirSync('.tmp', { recursive: true });
  const dir = mkdtempSync(join('.tmp', 'bench-worker-floor-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
    for (let i = 0; i < 8; i++)
      writeFileSync(
        join(dir, `t${i}.spec.ts`),
        `import { expect, test } from '@playwright/test';\ntest('fails ${i}', () => expect(1).toBe(2));\n`,
      );
    writeFileSync(
      join(dir, 'playwright.config.ts'),
      "import { defineConfig } from '@playwright/test';\nexport default defineConfig({ workers: 1, reporter: 'json' });\n",
    );
    const report = join(dir, 'report.json');
    spawnSync(process.execPath, ['../../node_modules/@playwright/test/cli.js', 'test'], {
      cwd: dir,
      env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: 'report.json' },
      stdio: 'ignore',
    });
    return median(freshWorkerGaps(reportResults(report)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the benchmark and writes bench-results/suite.json. */
export async function run(): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'bench-suite-'));
  try {
    const full = playwright([], join(out, 'full'));
    if (full.status !== 0)
      throw new Error(`bench suite: npx playwright test failed (exit ${full.status}); fix the suite first`);
    const redDist = redAgent(out);
    // One green and one red replay run, back to back (a second green run would add ~15 s to `npm run bench`).
    const green = [playwright(['--project=replay'], join(out, 'green'))];
    const red = playwright(['--project=replay'], join(out, 'red'), { ACP_SNAPSHOT_AGENT_DIST: redDist });
    for (const g of green)
      if (g.status !== 0) throw new Error(`bench suite: the replay run failed (exit ${g.status})`);
    const failed = red.results.filter((r) => r.status !== 'passed').length;
    if (red.status === 0 || failed === 0) throw new Error('bench suite: the red run did not fail');
    const scenarios = green[0]!.results.length;
    const timed = green.flatMap((g) => g.results).filter((r) => !Number.isNaN(agentMs(r)));
    const greenWall = median(green.map((g) => g.wallMs));
    const gaps = freshWorkerGaps(red.results);
    const betweenTests = green.flatMap((g) => sameWorkerGaps(g.results));
    writeResults('suite', {
      scenarios,
      suiteWallMs: full.wallMs,
      perScenarioWallMs: Math.round(greenWall / scenarios),
      perScenarioMedianMs: timed.length ? median(timed.map((r) => r.duration)) : 0,
      harnessOverheadMs: timed.length ? median(timed.map((r) => r.duration - agentMs(r))) : 0,
      redRunRatio: Math.round((red.wallMs / greenWall) * 100) / 100,
      redRunFailed: failed,
      workerStartMs: gaps.length ? median(gaps) : 0,
      workerStartFloorMs: workerStartFloor(),
      testGapMs: betweenTests.length ? median(betweenTests) : 0,
    });
    console.log(
      `replay walls: green ${green.map((g) => g.wallMs).join(', ')} ms, red ${red.wallMs} ms; ` +
        `load average: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Gaps between consecutive tests of one worker (no restart between them), for comparison. */
function sameWorkerGaps(results: JsonResult[]): number[] {
  const byWorker = new Map<number, JsonResult[]>();
  for (const r of results) byWorker.set(r.workerIndex, [...(byWorker.get(r.workerIndex) ?? []), r]);
  const gaps: number[] = [];
  for (const w of byWorker.values()) {
    w.sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
    for (let i = 1; i < w.length; i++)
      gaps.push(Date.parse(w[i]!.startTime) - (Date.parse(w[i - 1]!.startTime) + w[i - 1]!.duration));
  }
  return gaps;
}
