/**
 * The scenario tree: fixtures/ holds scenarios/ and sidecars/; each scenario directory holds its files and
 * nothing else, a valid input.json naming a known agent, an override exactly when flagged, and stdout and
 * workspace snapshots that parse.
 */

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readmeSection, recordCommand, refreshCommand } from '@acp-snapshot/core';
import { WORKSPACE_EXPECTED, workspaceFileProblem } from '../compare/workspace.js';
import { loadScenario, namedAgentCommand, type Scenario } from '../scenario/input.js';
import {
  ALL_ROW_KINDS,
  ALL_ROW_KINDS_SOURCE,
  type GuardContext,
  isDir,
  OPTIONAL,
  REQUIRED,
  readText,
  regenerateStdout,
} from './guard-context.js';

export async function checkScenarioTree(ctx: GuardContext): Promise<boolean> {
  const { fixturesDir, scenariosDir, show, add } = ctx;
  if (!(await isDir(fixturesDir))) {
    add(
      'scenario-files',
      `${show(fixturesDir)}: missing (the fixtures directory holds scenarios/ and sidecars/)`,
    );
    return false;
  }
  for (const e of await readdir(fixturesDir, { withFileTypes: true })) {
    if (!(e.isDirectory() && (e.name === 'scenarios' || e.name === 'sidecars'))) {
      add(
        'unknown-files',
        `${show(join(fixturesDir, e.name))}: unknown entry (fixtures/ holds scenarios/ and sidecars/ only)`,
      );
    }
  }

  if (!(await isDir(scenariosDir))) return true;
  for (const e of (await readdir(scenariosDir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(scenariosDir, e.name);
    if (!e.isDirectory()) {
      add(
        'unknown-files',
        `${show(path)}: orphan file (fixtures/scenarios/ holds one directory per scenario)`,
      );
      continue;
    }
    ctx.scenarioNames.push(e.name);
    await checkScenarioDir(ctx, e.name, path);
  }
  return true;
}

/** One scenario directory: its files, its input, its override flag, its snapshots. */
async function checkScenarioDir(ctx: GuardContext, name: string, path: string): Promise<void> {
  const { show, add, opts } = ctx;
  const entries = await readdir(path, { withFileTypes: true });
  const names = new Set(entries.map((x) => x.name));
  for (const req of REQUIRED) {
    if (!names.has(req)) {
      const hint =
        req === 'input.json'
          ? `every scenario directory needs one; see ${readmeSection("A scenario's input.json")}`
          : req === WORKSPACE_EXPECTED
            ? `every scenario states what it leaves in its workspace; write it: ${refreshCommand(name)}`
            : `record it: ${recordCommand(name)}`;
      add('scenario-files', `${show(join(path, req))}: missing (${hint})`);
    }
  }
  let scenario: Scenario | undefined;
  if (names.has('input.json')) {
    try {
      scenario = await loadScenario(join(path, 'input.json'));
    } catch (err) {
      add(
        'scenario-input',
        `${(err as Error).message.replace(join(path, 'input.json'), show(join(path, 'input.json')))}`,
      );
    }
  }
  if (scenario?.agent !== undefined && opts.agents) {
    try {
      namedAgentCommand(scenario.agent, show(join(path, 'input.json')), opts.agents);
    } catch (err) {
      add('scenario-input', (err as Error).message);
    }
  }
  if (scenario) {
    const hasOverride = names.has('replay.override.json');
    if (scenario.flags.overridden && !hasOverride) {
      add(
        'override-flag',
        `${show(join(path, 'input.json'))}: flags.overridden is true but replay.override.json is missing (add it, or drop the flag)`,
      );
    }
    if (!scenario.flags.overridden && hasOverride) {
      add(
        'override-flag',
        `${show(join(path, 'replay.override.json'))}: present but input.json does not set flags.overridden (set it, or delete the file)`,
      );
    }
  }
  for (const x of entries) {
    const allowed =
      (x.isFile() && ([...REQUIRED, ...OPTIONAL] as string[]).includes(x.name)) ||
      (x.isDirectory() && x.name === 'workspace') ||
      (x.isFile() && name === ALL_ROW_KINDS && x.name === ALL_ROW_KINDS_SOURCE);
    if (!allowed) {
      add(
        'unknown-files',
        `${show(join(path, x.name))}: unknown ${x.isDirectory() ? 'directory' : 'file'} (a scenario holds input.json, stdout.expected.jsonl, session.jsonl, workspace.expected.json, optional replay.override.json and workspace/)`,
      );
    }
  }
  await checkSnapshots(ctx, name, path, names);
}

/** The scenario's stdout and workspace snapshots are readable: JSON lines, and the workspace format. */
async function checkSnapshots(
  ctx: GuardContext,
  name: string,
  path: string,
  names: Set<string>,
): Promise<void> {
  const { show, add } = ctx;
  if (names.has(WORKSPACE_EXPECTED)) {
    const file = join(path, WORKSPACE_EXPECTED);
    const { text, notUtf8 } = await readText(file, show(file), `${refreshCommand(name)}`);
    const problem = notUtf8 ?? workspaceFileProblem(text, show(file), name);
    if (problem) add('workspace-expected', problem);
  }
  if (names.has('stdout.expected.jsonl')) {
    const file = join(path, 'stdout.expected.jsonl');
    const { text, notUtf8 } = await readText(file, show(file), regenerateStdout(name));
    if (notUtf8) add('stdout-json', notUtf8);
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    lines.forEach((line, i) => {
      if (notUtf8) return;
      try {
        JSON.parse(line);
      } catch {
        add(
          'stdout-json',
          `${show(file)}:${i + 1}: not JSON (every line must parse; ${regenerateStdout(name)})`,
        );
      }
    });
  }
}
