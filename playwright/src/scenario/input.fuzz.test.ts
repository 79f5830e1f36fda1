// Fuzzing input.json: committed scenarios with one field mutated, and hostile bytes on disk (see TESTING.md).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  applyMutation,
  assertHostileFiles,
  bigHostile,
  expectParserOutcome,
  mutatedDoc,
  type Outcome,
  outcome,
  smallHostile,
} from '@acp-snapshot/core/testing';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { fixturesDir } from './corpus.js';
import { loadScenario, parseScenario, type Scenario, ScenarioError } from './input.js';

const dir = join(fixturesDir(), 'scenarios');
/** Every committed input.json, as seeds. */
const seeds = readdirSync(dir)
  .map((name) => join(dir, name, 'input.json'))
  .filter((file) => existsSync(file))
  .map((file) => ({ file, bytes: readFileSync(file) }));
const docs = seeds.map((s) => JSON.parse(s.bytes.toString()) as unknown);

/** A parsed scenario is a fixed point: parsing it again gives it back (defaults applied once). */
function checkScenario(o: Outcome<Scenario>, file: string): void {
  if (o.ok) expect(parseScenario(o.value, file)).toEqual(o.value);
  else
    expect((o.error as Error).message).toMatch(
      /: (invalid scenario\n {2}\S|not valid JSON \(|cannot read \()|:\d+: not valid UTF-8 \(byte 0x[0-9a-f]{2} at column \d+\); save the file as UTF-8$/,
    );
}

test('parseScenario: committed scenarios with one field mutated parse or fail naming the file and field', async () => {
  await fc.assert(
    fc.asyncProperty(mutatedDoc(docs, smallHostile), async ({ seed, mutation }) => {
      const file = `fuzz/${seed}/input.json`;
      const o = await outcome(() => parseScenario(applyMutation(docs[seed], mutation), file));
      expectParserOutcome(o, ScenarioError, [file]);
      checkScenario(o, file);
    }),
    { numRuns: 400 },
  );
});

test('parseScenario: a 1-16 MB string (value or key) or a 10^4-10^5 deep value fails readably, in bounded time and memory', async () => {
  await fc.assert(
    fc.asyncProperty(mutatedDoc(docs, bigHostile), async ({ seed, mutation }) => {
      const file = `fuzz/${seed}/input.json`;
      const o = await outcome(() => parseScenario(applyMutation(docs[seed], mutation), file));
      expectParserOutcome(o, ScenarioError, [file]);
      checkScenario(o, file);
    }),
    { numRuns: 16 },
  );
});

test('parseScenario: ten thousand bad steps give a short message listing the first issues', async () => {
  const steps = Array.from({ length: 10_000 }, () => ({ op: 'jump' }));
  const o = await outcome(() => parseScenario({ description: 'd', steps }, 'many/input.json'));
  expectParserOutcome(o, ScenarioError, ['many/input.json', 'steps[0].op', '... and 9990 more']);
});

test('loadScenario: hostile bytes on disk (truncation, BOM, CRLF, NUL, bad UTF-8, garbage, huge or deep lines) load or fail naming the file', async () => {
  await assertHostileFiles(
    seeds.map((s) => s.bytes),
    loadScenario,
    ScenarioError,
    { numRuns: 200, check: checkScenario },
  );
});
