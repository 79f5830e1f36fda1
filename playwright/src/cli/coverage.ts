// `coverage [DIR...] [--json FILE] [--html FILE] [--fail-on-gap]`: the protocol coverage of the last run, from
// the wires its tests kept (`test-results/acp-wires/`; several shards' test-results directories merge).
// Prints the text, writes JSON and HTML when asked; exits 1 with --fail-on-gap when something declared was
// never exercised, 2 on bad arguments or when no wire was found.
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { computeCoverage } from '../coverage/coverage.js';
import { coverageHtml, coverageText } from '../coverage/coverage-format.js';
import { readTestWires } from '../coverage/coverage-records.js';

const USAGE =
  'usage: acp-snapshot coverage [DIR...] [--json FILE] [--html FILE] [--fail-on-gap]\n' +
  "  DIR: a test-results directory of a run (default: test-results); give each shard's to merge them";

function parse(args: string[]): { dirs: string[]; json?: string; html?: string; failOnGap: boolean } {
  const dirs: string[] = [];
  let json: string | undefined;
  let html: string | undefined;
  let failOnGap = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--fail-on-gap') failOnGap = true;
    else if (a === '--json' || a === '--html') {
      const file = args[++i];
      if (!file) throw new Error(`coverage: ${a} needs a file name\n${USAGE}`);
      if (a === '--json') json = file;
      else html = file;
    } else if (a.startsWith('-')) throw new Error(`coverage: unknown option ${a}\n${USAGE}`);
    else dirs.push(a);
  }
  return {
    dirs: dirs.length ? dirs : ['test-results'],
    ...(json ? { json } : {}),
    ...(html ? { html } : {}),
    failOnGap,
  };
}

try {
  const opts = parse(process.argv.slice(2));
  const missing = opts.dirs.filter((d) => !existsSync(d));
  if (missing.length)
    throw new Error(
      `coverage: no such directory: ${missing.join(', ')} (run the tests first: npx playwright test; then acp-snapshot coverage from the same directory)`,
    );
  const wires = readTestWires(opts.dirs.map((d) => resolve(d)));
  if (wires.length === 0)
    throw new Error(
      `coverage: no test wire under ${opts.dirs.join(', ')}: run the tests first (npx playwright test); each test that drives an agent keeps its wire in acp-wires/`,
    );
  const coverage = computeCoverage(wires);
  console.log(coverageText(coverage));
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify(coverage, null, 2)}\n`);
  if (opts.html) writeFileSync(opts.html, coverageHtml(coverage));
  const gaps = coverage.projects.reduce((n, p) => n + p.gaps.length, 0);
  process.exitCode = opts.failOnGap && gaps > 0 ? 1 : 0;
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 2;
}
