/** Every conformance check, in report order. */
import type { Check } from '../check.js';
import { errorChecks } from './errors.js';
import { initializeChecks } from './initialize.js';
import { promptChecks } from './prompt.js';
import { sessionChecks } from './session.js';
import { sessionSurfaceChecks } from './session-surface.js';
import { transportChecks } from './transport.js';

/** All checks of the ACP v1 conformance suite. */
export const ALL_CHECKS: readonly Check[] = [
  ...transportChecks,
  ...initializeChecks,
  ...sessionChecks,
  ...sessionSurfaceChecks,
  ...promptChecks,
  ...errorChecks,
];

/** The check with this id, or an error listing the known ids. */
export function checkById(id: string): Check {
  const check = ALL_CHECKS.find((c) => c.id === id);
  if (!check)
    throw new Error(`no conformance check "${id}"; known: ${ALL_CHECKS.map((c) => c.id).join(', ')}`);
  return check;
}
