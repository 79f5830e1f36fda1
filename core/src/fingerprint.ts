import { createHash } from 'node:crypto';
import type { LlmRequest } from './llm.js';
import type { RequestFingerprint } from './messages.js';
import { replaceRoots, type VolatileRoots } from './roots.js';

/** JSON with object keys sorted at every depth: the canonical text that is hashed. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    // fromEntries defines own properties: a `__proto__` key (JSON.parse keeps it as data) stays a key.
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .flatMap((key) => {
          const v = (value as Record<string, unknown>)[key];
          return v === undefined ? [] : [[key, sortKeys(v)]];
        }),
    );
  }
  return value;
}

/** Short sha256 (16 hex chars) of a canonical value. */
export function shortHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

/**
 * The canonical fingerprint of a model request: per-part hashes plus an overall hash, computed
 * after the session's volatile roots are replaced, so a recording made in one generated cwd
 * matches a replay in another. The agent persists it in `llm/request`; replay recomputes and compares.
 */
export function fingerprintRequest(request: LlmRequest, roots: VolatileRoots = {}): RequestFingerprint {
  const r = replaceRoots(request, roots);
  const parts = {
    model: shortHash(r.model),
    system: shortHash(r.system),
    tools: shortHash(r.tools),
    params: shortHash({ ...r.params, purpose: r.purpose }),
    messages: r.messages.map((m) => shortHash(m)),
  };
  return { hash: shortHash(parts), parts };
}

/**
 * Every differing part of two fingerprints, in request order (`system`, `tools`, `messages[3]`...);
 * `['hash']` when only the overall hash differs, [] when equal.
 */
export function differingParts(expected: RequestFingerprint, actual: RequestFingerprint): string[] {
  if (expected.hash === actual.hash) return [];
  const out: string[] = [];
  for (const key of ['model', 'system', 'tools', 'params'] as const) {
    if (expected.parts[key] !== actual.parts[key]) out.push(key);
  }
  const a = expected.parts.messages;
  const b = actual.parts.messages;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) out.push(`messages[${i}]`);
  }
  return out.length > 0 ? out : ['hash'];
}

/** The first differing part of two fingerprints (`system`, `tools`, `messages[3]`...), or undefined. */
export function firstDifferingPart(
  expected: RequestFingerprint,
  actual: RequestFingerprint,
): string | undefined {
  return differingParts(expected, actual)[0];
}
