/**
 * The review aid's text (playwright/src/modes/review.ts): per scenario, the flagged calls first with what they mean and
 * what to do, then one table row per model call. Shared by `npm run review` and the record output.
 */
import { clipText, recordCommand } from '@acp-snapshot/core';
import { type CallReview, compactParts, type ScenarioReview } from './review.js';

/** What a flagged call means; the caller adds what to do about it. */
export const NONDETERMINISM =
  'The agent sent the model the same request and got a different answer: that is model nondeterminism, ' +
  'not a change in the agent.';

/** What to do about a flagged call of `scenario`, as `npm run review` says it. */
export function reviewAdvice(scenario: string): string {
  return (
    `Record it again to see whether the model answers the same (${recordCommand(scenario)}, with the ` +
    'model settings it was recorded with), or keep the new answer knowingly ' +
    '(npm run review -- --allow-nondeterminism exits 0).'
  );
}

/** What to do about a flagged call of a recording that just replaced the fixture. */
export function recordAdvice(scenario: string): string {
  return (
    `Record it again to see whether the model answers the same (${recordCommand(scenario)}), or keep ` +
    'it knowingly (npm run review lists it again before you commit).'
  );
}

function requestCell(c: CallReview): string {
  if (c.status !== 'compared') return `(${c.status})`;
  if (c.request.kind === 'unknown') return 'unknown (no llm/request)';
  if (c.request.kind === 'unchanged') return 'unchanged';
  return `changed: ${compactParts(c.request.parts).join(', ')}`;
}

function responseCell(c: CallReview): string {
  if (c.status !== 'compared') return clipText(c.lines.join('; '), 60);
  const r = c.response;
  if (r.kind === 'unchanged') return 'unchanged';
  if (r.kind === 'usage') return 'token usage only';
  return `changed${r.overridden ? ' (replay.override.json)' : ''}${c.flagged ? '  <- FLAGGED' : ''}`;
}

/** One line saying how many calls there are and what changed. */
export function reviewSummary(review: ScenarioReview): string {
  const count = (p: (c: CallReview) => boolean) => review.calls.filter(p).length;
  const parts = [
    review.flagged.length ? `${review.flagged.length} flagged` : '',
    `${count((c) => c.status === 'compared' && c.request.kind === 'changed')} request(s) changed`,
    `${count((c) => c.status === 'compared' && c.response.kind === 'changed')} response(s) changed`,
    count((c) => c.status === 'added') ? `${count((c) => c.status === 'added')} added` : '',
    count((c) => c.status === 'removed') ? `${count((c) => c.status === 'removed')} removed` : '',
  ].filter((p) => p !== '' && !p.startsWith('0 '));
  const n = review.calls.length;
  if (n === 0) return `${review.scenario}: no model calls`;
  return `${review.scenario}: ${n} model call(s): ${parts.length ? parts.join(', ') : 'all unchanged'}`;
}

/** The lines of each flagged call: which call, what changed in its answer. */
export function flaggedLines(review: ScenarioReview): string[] {
  const out: string[] = [];
  for (const c of review.calls) {
    if (c.status !== 'compared' || !c.flagged || c.response.kind !== 'changed') continue;
    out.push(
      `FLAGGED ${review.scenario} call ${c.call} (${c.label}): the response changed while the request did not:`,
    );
    out.push(...c.response.diff.map((l) => `    ${l}`));
  }
  return out;
}

/** The whole review of a scenario: summary, flagged calls with their meaning and `advice`, the table. */
export function formatReview(review: ScenarioReview, advice: string): string {
  const out = [reviewSummary(review)];
  const flagged = flaggedLines(review);
  if (flagged.length) out.push(...flagged.map((l) => `  ${l}`), `  ${NONDETERMINISM}`, `  ${advice}`);
  if (review.calls.length === 0) return out.join('\n');
  const rows = [
    ['call', 'at', 'request', 'response'],
    ...review.calls.map((c) => [String(c.call), c.label, requestCell(c), responseCell(c)]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    out.push(`  ${r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  ')}`);
  return out.join('\n');
}
