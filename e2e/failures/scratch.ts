/**
 * Throwaway scenarios for the failure catalog's harness layers (replay and record): a committed
 * scenario copied into a temporary fixtures directory and mutated (input.json edited, session.jsonl
 * lines corrupted or dropped, a replay.override.json added), so the real harness path runs against a
 * broken fixture, or records into a copy, without touching the committed tree.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  test as base,
  fixturesDir,
  type ScenarioInput,
  type ScenarioPaths,
  scenarioPaths,
} from '@acp-snapshot/playwright/testing';
import fse from 'fs-extra';

/** Each throwaway scenario's whole budget (input.json timeoutMs): the driver kills the agent after it. */
export const SCENARIO_TIMEOUT_MS = 15_000;

/** How to derive a throwaway scenario from a committed one. */
export interface ScratchSpec {
  /** The committed scenario to copy (fixtures/scenarios/NAME). */
  from: string;
  /** The throwaway scenario's name (it names the generated roots and appears in every message). */
  name: string;
  /** Edits the parsed input.json. */
  input?: (input: ScenarioInput) => ScenarioInput;
  /** Edits session.jsonl's lines (without the trailing newline). */
  session?: (lines: string[]) => string[];
  /** Writes replay.override.json with these calls and marks the scenario overridden. */
  override?: readonly unknown[];
}

/** A throwaway scenario's paths, and the temporary fixtures directory that holds it (and its sidecars/). */
export interface ScratchPaths extends ScenarioPaths {
  fixtures: string;
}

/** A throwaway scenario on disk; `dispose` removes its fixtures directory. */
export interface ScratchScenario {
  paths: ScratchPaths;
  dispose: () => Promise<void>;
}

/** Copies `spec.from` into a fresh temporary fixtures directory as `spec.name` and applies the edits. */
export async function scratchScenario(spec: ScratchSpec): Promise<ScratchScenario> {
  const fixtures = await mkdtemp(join(tmpdir(), 'acp-failures-'));
  const source = scenarioPaths(fixturesDir(), spec.from);
  const paths = { ...scenarioPaths(fixtures, spec.name), fixtures };
  await fse.copy(source.dir, paths.dir);
  let input = JSON.parse(await readFile(paths.input, 'utf8')) as ScenarioInput;
  if (spec.input) input = spec.input(input);
  if (spec.override) {
    input = { ...input, flags: { ...input.flags, overridden: true } };
    await writeFile(paths.override, `${JSON.stringify({ calls: spec.override }, null, 2)}\n`);
  }
  await writeFile(paths.input, `${JSON.stringify(input, null, 2)}\n`);
  if (spec.session) {
    const lines = (await readFile(paths.session, 'utf8')).replace(/\n$/, '').split('\n');
    await writeFile(paths.session, `${spec.session(lines).join('\n')}\n`);
  }
  return { paths, dispose: () => rm(fixtures, { recursive: true, force: true }) };
}

/** `test` with `scratch(spec)`: a throwaway scenario with a short budget, removed after the test. */
export const test = base.extend<{ scratch: (spec: ScratchSpec) => Promise<ScratchPaths> }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  scratch: async ({}, use, testInfo) => {
    const made: Array<() => Promise<void>> = [];
    await use(async (spec) => {
      const s = await scratchScenario({
        ...spec,
        input: (i) => ({ ...(spec.input ? spec.input(i) : i), timeoutMs: SCENARIO_TIMEOUT_MS }),
      });
      made.push(s.dispose);
      await testInfo.attach('scenario', { body: s.paths.dir, contentType: 'text/plain' });
      return s.paths;
    });
    await Promise.all(made.map((dispose) => dispose()));
  },
});

/** Edits every prompt step of a scenario's input. */
export function onPrompt(
  input: ScenarioInput,
  edit: (s: Extract<ScenarioInput['steps'][number], { op: 'prompt' }>) => object,
): ScenarioInput {
  return {
    ...input,
    steps: input.steps.map((s) => (s.op === 'prompt' ? { ...s, ...edit(s) } : s)),
  } as ScenarioInput;
}
