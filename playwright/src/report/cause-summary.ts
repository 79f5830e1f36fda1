/**
 * The end of a red run, one block per shared cause: the cause, the change, the scenarios it broke and the
 * one command that accepts it when it was intended. Printed by the summary reporter, attached to the
 * report by the coverage teardown (`failures by cause`).
 */
import { projectTestsCommand, refreshCommand, updateSnapshotsCommand } from '@acp-snapshot/core';
import type { Cause, CauseKind, CauseProject } from './causes.js';

/** More scenarios than this and the command names none (it runs over all of them). */
const MAX_NAMED = 6;

export interface Group {
  cause: Cause;
  scenarios: string[];
}

/**
 * Adds a scenario's cause to its group: one group per cause key and project, since each project's tests are
 * accepted by a command of their own (a corpus scenario has no project).
 */
export function addCause(groups: Map<string, Group>, scenario: string, cause: Cause): void {
  const id = `${cause.project?.name ?? ''}\n${cause.key}`;
  const group = groups.get(id) ?? { cause, scenarios: [] };
  if (!group.scenarios.includes(scenario)) group.scenarios.push(scenario);
  groups.set(id, group);
}

/** A test title as a pattern for `-g`, quoted for the shell. */
function titlePattern(titles: readonly string[]): string {
  const escaped = titles.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = escaped.length === 1 ? escaped[0]! : `(${escaped.join('|')})`;
  return `'${pattern.replace(/'/g, "'\\''")}'`;
}

/**
 * The command that accepts a cause of a spec project's tests: their snapshots updated by Playwright's own flag,
 * or a changed model request recorded again, by the project's `:record` twin when it has one.
 */
function projectAcceptCommand(kind: CauseKind, project: CauseProject, titles: readonly string[]): string {
  // Many titles read worse than the whole project: its unaffected tests replay unchanged.
  const grep = titles.length > MAX_NAMED ? undefined : titlePattern(titles);
  if (kind !== 'request') return projectTestsCommand(project.name, grep, '--update-snapshots');
  if (project.record)
    return `${projectTestsCommand(project.record, grep)} (with the upstream's URL and key in the environment)`;
  if (project.model === 'replay')
    return `record the session log its model replays again (the agent against a live model), then run: ${projectTestsCommand(project.name, grep)}`;
  return `set use.model.record = 'missing' (or 'all') and its upstream for these tests, then run: ${projectTestsCommand(project.name, grep)}`;
}

/**
 * The command that accepts a cause of this kind in these scenarios: a corpus scenario's by the npm scripts (one
 * spelling), a spec project's tests by their project's command.
 */
export function acceptCommand(
  kind: CauseKind,
  scenarios: readonly string[],
  all: boolean,
  project?: CauseProject,
): string {
  if (project) return projectAcceptCommand(kind, project, scenarios);
  // Many names read worse than refreshing everything: refresh leaves unaffected scenarios byte-identical.
  const names = all || scenarios.length > MAX_NAMED ? [] : scenarios;
  if (kind === 'request' || kind === 'log') return refreshCommand(...names);
  // One name is spelled as the per-test messages spell it; several need a quoted pattern.
  const grep = scenarios.length === 1 ? scenarios[0]! : `'^(${scenarios.join('|')})$'`;
  return updateSnapshotsCommand(names.length ? grep : undefined);
}

/** The summary text of the grouped causes ('' when no failure carried a cause). */
export function summarize(groups: readonly Group[], replayed: number): string {
  if (groups.length === 0) return '';
  const out = [''];
  const sorted = [...groups].sort((a, b) => b.scenarios.length - a.scenarios.length);
  const failing = new Set(groups.flatMap((g) => g.scenarios)).size;
  out.push(`acp-snapshot: ${failing} failing scenario(s), ${groups.length} cause(s):`);
  sorted.forEach((g, i) => {
    const n = g.scenarios.length;
    const all = n === replayed && replayed > 1;
    const project = g.cause.project;
    const what = project
      ? `test${n === 1 ? '' : 's'} of project ${project.name}`
      : `scenario${n === 1 ? '' : 's'}`;
    out.push('', `${i + 1}. ${n} ${what}: ${g.cause.detail.split('\n')[0]}`);
    for (const line of g.cause.detail.split('\n').slice(1, 16)) out.push(`   ${line}`);
    out.push(`   ${project ? 'tests' : 'scenarios'}: ${g.scenarios.join(', ')}`);
    out.push(`   if intended, accept it with: ${acceptCommand(g.cause.kind, g.scenarios, all, project)}`);
  });
  return out.join('\n');
}
