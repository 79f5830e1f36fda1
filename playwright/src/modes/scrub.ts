/**
 * Scrubbing before anything a recording writes reaches disk: key values and the credential formats of the
 * one secrets table (model-http credentials.ts, which the guards check by too), the real home, the user name.
 */

import { userInfo } from 'node:os';
import { RootReplacer } from '@acp-snapshot/core';
import { scrubCredentials } from '@acp-snapshot/model-http';
import { machineRoots } from '../roots/roots.js';
import { isIdentifyingHome, isIdentifyingUserName } from '../roots/secrets.js';
import { LOCAL_PLACEHOLDER_KEY } from './record-gate.js';

/** What the scrubber removes. */
export interface ScrubSecrets {
  /** Secret values (the API key) replaced verbatim. */
  values: string[];
  /** The real home directory. */
  home?: string;
  /** The real user name. */
  user?: string;
}

/** This machine's secrets for a recording with `apiKey`. */
export function machineSecrets(apiKey?: string): ScrubSecrets {
  // The same real home every surface hides (roots.ts); scrubbing is the last line behind the projection.
  const { realHome } = machineRoots();
  const s: ScrubSecrets = {
    values: apiKey && apiKey !== LOCAL_PLACEHOLDER_KEY ? [apiKey] : [],
    ...(realHome ? { home: realHome } : {}),
  };
  try {
    s.user = userInfo().username;
  } catch {
    // No passwd entry: nothing to scrub.
  }
  return s;
}

/**
 * Removes secrets from text bound for disk: key values and every credential format of the one table
 * (model-http credentials.ts, which the guards check by too), the real home directory and the user name.
 */
export function scrubSecrets(text: string, secrets: ScrubSecrets): string {
  const out = scrubCredentials(text, { values: secrets.values });
  // The same roots, names and boundary rule as every other surface (session-log roots.ts).
  const user = isIdentifyingUserName(secrets.user) ? secrets.user : undefined;
  const realHome = isIdentifyingHome(secrets.home) ? secrets.home : undefined;
  return RootReplacer.of({ realHome, user }).text(out);
}
