/**
 * Where a test's ACP wire goes for coverage: one JSON file per test run under its project's output
 * directory (`test-results/acp-wires/`), which Playwright clears at the start of every run. The coverage
 * teardown of the same run reads them; `acp-snapshot coverage DIR...` reads them from several shards.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestInfo } from '@playwright/test';
import type { TestWire, WireLine } from './coverage.js';

export const WIRE_DIR = 'acp-wires';

/** A test's title path below its project: `file › describe › title`. */
export function testPath(info: Pick<TestInfo, 'titlePath'>): string {
  return info.titlePath.join(' › ');
}

/** Keeps what this test put on the wire, for the run's coverage. */
export function writeTestWire(
  info: Pick<TestInfo, 'project' | 'titlePath' | 'testId' | 'repeatEachIndex' | 'retry'>,
  sent: readonly WireLine[],
  received: readonly WireLine[],
): void {
  const dir = join(info.project.outputDir, WIRE_DIR);
  mkdirSync(dir, { recursive: true });
  const wire: TestWire = {
    project: info.project.name,
    test: testPath(info),
    sent: sent.map(({ text, process }) => ({ text, process })),
    received: received.map(({ text, process }) => ({ text, process })),
  };
  writeFileSync(join(dir, `${info.testId}-${info.repeatEachIndex}-${info.retry}.json`), JSON.stringify(wire));
}

/**
 * The wires kept under these directories: each a project output directory (holding `acp-wires/`) or an
 * `acp-wires/` directory itself. A file that is not a wire names itself in the error.
 */
export function readTestWires(dirs: readonly string[]): TestWire[] {
  const out: TestWire[] = [];
  const seen = new Set<string>();
  for (const d of dirs) {
    const dir = existsSync(join(d, WIRE_DIR)) ? join(d, WIRE_DIR) : d;
    if (seen.has(dir) || !existsSync(dir)) continue;
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
