// Fuzzing replay.override.json: committed overrides with one field mutated, hostile texts and bytes (see TESTING.md).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  assertHostileFiles,
  bigHostile,
  expectParserOutcome,
  mutatedDoc,
  mutatedJsonText,
  outcome,
  smallHostile,
} from '@acp-snapshot/core/testing';
import { loadOverride, parseOverride, ReplayOverrideError } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';

const repo = join(import.meta.dirname, '..', '..');
const scenarios = join(repo, 'fixtures', 'scenarios');
/** Every committed replay.override.json and the README example, as seeds. */
const texts = [
  ...readdirSync(scenarios)
    .map((name) => join(scenarios, name, 'replay.override.json'))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, 'utf8')),
  /```json replay\.override\.json\n([\s\S]*?)```/.exec(
    readFileSync(join(repo, 'llm-replay', 'README.md'), 'utf8'),
  )![1]!,
];
const docs = texts.map((t) => JSON.parse(t) as unknown);

test('parseOverride: committed overrides with one field mutated parse or fail naming the file and field', async () => {
  expect(docs.length).toBeGreaterThanOrEqual(4);
  await fc.assert(
    fc.asyncProperty(mutatedDoc(docs, smallHostile), async ({ seed, mutation }) => {
      const file = `fuzz/${seed}/replay.override.json`;
      const o = await outcome(() => parseOverride(mutatedJsonText(docs[seed], mutation), file));
      expectParserOutcome(o, ReplayOverrideError, [file]);
      if (o.ok) expect(o.value!.length).toBeGreaterThan(0);
    }),
    { numRuns: 400 },
  );
});

test('parseOverride: a 1-16 MB string (value or key) or a 10^4-10^5 deep value fails readably, in bounded time and memory', async () => {
  await fc.assert(
    fc.asyncProperty(mutatedDoc(docs, bigHostile), async ({ seed, mutation }) => {
      const file = `fuzz/${seed}/replay.override.json`;
      const o = await outcome(() => parseOverride(mutatedJsonText(docs[seed], mutation), file));
      expectParserOutcome(o, ReplayOverrideError, [file]);
    }),
    { numRuns: 16 },
  );
});

test('loadOverride: hostile bytes on disk (truncation, BOM, CRLF, NUL, bad UTF-8, garbage, huge or deep lines) load or fail naming the file', async () => {
  await assertHostileFiles(
    texts.map((t) => Buffer.from(t)),
    loadOverride,
    ReplayOverrideError,
    { numRuns: 200 },
  );
});
