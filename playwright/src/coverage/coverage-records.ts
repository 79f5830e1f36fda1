/**
 * Where a test's ACP wire goes for coverage: one JSON file per test run under its project's output
 * directory (`test-results/acp-wires/`), which Playwright clears at the start of every run. The coverage
 * teardown of the same run reads them; `acp-snapshot coverage DIR...` reads them from several shards.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { TestInfo } from '@playwright/test';
import { CAUSE_ANNOTATION, CAUSE_TEXT, type Cause } from '../report/causes.js';
import type { McpWireLine, TestWire, WireLine } from './coverage.js';

export const WIRE_DIR = 'acp-wires';
/** Where a failing scenario's causes go, for the run's per-cause summary in the report. */
export const CAUSES_DIR = 'acp-causes';

type RecordInfo = Pick<TestInfo, 'project' | 'titlePath' | 'testId' | 'repeatEachIndex' | 'retry' | 'title'>;

const fileOf = (info: RecordInfo, dir: string) =>
  join(info.project.outputDir, dir, `${info.testId}-${info.repeatEachIndex}-${info.retry}.json`);

/** Keeps a cause of this test's failure (the scenario is the test's title), for the run's summary. */
export function writeTestCause(info: RecordInfo, cause: Cause): void {
  const file = fileOf(info, CAUSES_DIR);
  mkdirSync(join(info.project.outputDir, CAUSES_DIR), { recursive: true });
  const kept: { scenario: string; causes: Cause[] } = existsSync(file)
    ? JSON.parse(readFileSync(file, 'utf8'))
    : { scenario: info.title, causes: [] };
  if (!kept.causes.some((c) => c.key === cause.key)) kept.causes.push(cause);
  writeFileSync(file, JSON.stringify(kept));
}

/**
 * Tells the run why this test failed: kept for the coverage teardown's "failures by cause" and carried as an
 * annotation for the summary reporter, so failures that share a cause are summarized once.
 */
export function noteTestCause(info: RecordInfo & Pick<TestInfo, 'annotations'>, cause: Cause): void {
  writeTestCause(info, cause);
  info.annotations.push({ type: CAUSE_ANNOTATION, description: JSON.stringify(cause) });
  info.annotations.push({ type: CAUSE_TEXT, description: cause.detail });
}

/** The causes kept under these project output directories. */
export function readTestCauses(dirs: readonly string[]): { scenario: string; causes: Cause[] }[] {
  const out: { scenario: string; causes: Cause[] }[] = [];
  for (const d of new Set(dirs)) {
    const dir = join(d, CAUSES_DIR);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort())
      if (f.endsWith('.json')) out.push(JSON.parse(readFileSync(join(dir, f), 'utf8')));
  }
  return out;
}

/** A test's title path below its project: `file › describe › title`. */
export function testPath(info: Pick<TestInfo, 'titlePath'>): string {
  return info.titlePath.join(' › ');
}

/** Keeps what this test put on the wire (and what its MCP servers saw, when any), for the run's coverage. */
export function writeTestWire(
  info: Omit<RecordInfo, 'title'>,
  sent: readonly WireLine[],
  received: readonly WireLine[],
  mcp?: readonly McpWireLine[],
): void {
  const dir = join(info.project.outputDir, WIRE_DIR);
  mkdirSync(dir, { recursive: true });
  const wire: TestWire = {
    project: info.project.name,
    test: testPath(info),
    sent: sent.map(({ text, process }) => ({ text, process })),
    received: received.map(({ text, process }) => ({ text, process })),
    ...(mcp && mcp.length > 0 ? { mcp: [...mcp] } : {}),
  };
  writeFileSync(fileOf(info as RecordInfo, WIRE_DIR), JSON.stringify(wire));
}

/**
 * The wires kept under these directories: each a project output directory (holding `acp-wires/`) or an
 * `acp-wires/` directory itself. A file that is not a wire names itself in the error.
 */
export function readTestWires(dirs: readonly string[]): TestWire[] {
  const out: TestWire[] = [];
  const seen = new Set<string>();
  for (const d of dirs) {
    // A results directory without wires (a later run of other projects cleared them) holds other JSON
    // (the json reporter's report.json): only an acp-wires directory's files are wires.
    const dir = existsSync(join(d, WIRE_DIR)) ? join(d, WIRE_DIR) : basename(d) === WIRE_DIR ? d : undefined;
    if (!dir || seen.has(dir) || !existsSync(dir)) continue;
    seen.add(dir);
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith('.json')) continue;
      const file = join(dir, f);
      let wire: TestWire;
      try {
        wire = JSON.parse(readFileSync(file, 'utf8')) as TestWire;
      } catch (e) {
        throw new Error(
          `coverage: ${file} is not a test wire (${(e as Error).message}); delete it and run the tests again`,
        );
      }
      if (typeof wire?.project !== 'string' || !Array.isArray(wire.sent) || !Array.isArray(wire.received))
        throw new Error(
          `coverage: ${file} is not a test wire (no project, sent and received); delete it and run the tests again`,
        );
      out.push(wire);
    }
  }
  return out;
}
