/**
 * The end of a red run, one block per shared cause: the cause, the change, the scenarios it broke and the
 * one command that accepts it when it was intended. Printed by the summary reporter, attached to the
 * report by the coverage teardown (`failures by cause`).
 */
import { refreshCommand, updateSnapshotsCommand } from '@acp-snapshot/core';
import type { Cause, CauseKind } from './causes.js';

/** More scenarios than this and the command names none (it runs over all of them). */
const MAX_NAMED = 6;

export interface Group {
  cause: Cause;
  scenarios: string[];
}

/** Adds a scenario's cause to its group (one group per cause key). */
export function addCause(groups: Map<string, Group>, scenario: string, cause: Cause): void {
  const group = groups.get(cause.key) ?? { cause, scenarios: [] };
  if (!group.scenarios.includes(scenario)) group.scenarios.push(scenario);
  groups.set(cause.key, group);
}

/** The command that accepts a cause of this kind in these scenarios (the npm scripts, one spelling). */
export function acceptCommand(kind: CauseKind, scenarios: readonly string[], all: boolean): string {
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
    out.push('', `${i + 1}. ${n} scenario${n === 1 ? '' : 's'}: ${g.cause.detail.split('\n')[0]}`);
    for (const line of g.cause.detail.split('\n').slice(1, 16)) out.push(`   ${line}`);
    out.push(`   scenarios: ${g.scenarios.join(', ')}`);
    out.push(`   if intended, accept it with: ${acceptCommand(g.cause.kind, g.scenarios, all)}`);
  });
  return out.join('\n');
}
