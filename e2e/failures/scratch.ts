/**
 * Throwaway scenarios for the failure catalog's harness layer: a committed scenario copied into a
 * temporary fixtures directory and mutated (input.json edited, session.jsonl lines corrupted or
 * dropped, a replay.override.json added), so the real harness path runs against a broken fixture
 * without touching the committed tree.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fse from 'fs-extra';
import type { ScenarioInput } from '../scenario.js';
import { fixturesDir, type ScenarioPaths, scenarioPaths } from '../scenarios.js';

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

/** A throwaway scenario on disk; `dispose` removes its fixtures directory. */
export interface ScratchScenario {
  paths: ScenarioPaths;
  dispose: () => Promise<void>;
}

/** Copies `spec.from` into a fresh temporary fixtures directory as `spec.name` and applies the edits. */
export async function scratchScenario(spec: ScratchSpec): Promise<ScratchScenario> {
  const fixtures = await mkdtemp(join(tmpdir(), 'acp-failures-'));
  const source = scenarioPaths(fixturesDir(), spec.from);
  const paths = scenarioPaths(fixtures, spec.name);
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
