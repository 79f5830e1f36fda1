/** Every conformance check, in report order. */
import type { Check } from '../check.js';
import { errorChecks } from './errors.js';
import { initializeChecks } from './initialize.js';
import { promptChecks } from './prompt.js';
import { sessionChecks } from './session.js';
import { sessionSurfaceChecks } from './session-surface.js';
import { transportChecks } from './transport.js';
import { v2Checks } from './v2.js';

/** All checks of the ACP v1 conformance suite. */
export const ALL_CHECKS: readonly Check[] = [
  ...transportChecks,
  ...initializeChecks,
  ...sessionChecks,
  ...sessionSurfaceChecks,
  ...promptChecks,
  ...errorChecks,
];

/** The checks of the ACP v2 suite (`--protocol 2`), `v2.negotiation` first. */
export const V2_CHECKS: readonly Check[] = v2Checks;

/** The protocol versions the kit has a suite for. */
export const SUITE_PROTOCOLS = [1, 2] as const;

/** The suite of one protocol version. */
export function checksFor(protocol: 1 | 2): readonly Check[] {
  return protocol === 2 ? V2_CHECKS : ALL_CHECKS;
}

/** The check with this id in a protocol's suite, or an error listing that suite's ids. */
export function checkById(id: string, protocol: 1 | 2 = 1): Check {
  const suite = checksFor(protocol);
  const check = suite.find((c) => c.id === id);
  if (!check)
    throw new Error(
      `no conformance check "${id}"${protocol === 2 ? ' in the v2 suite' : ''}; known: ${suite.map((c) => c.id).join(', ')}`,
    );
  return check;
}
