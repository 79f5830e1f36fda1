/** What counts as a secret in fixture text: shared by record-mode's scrubber and the no-secrets guard. */

/** User names too common to treat as identifying (scrubbing them would mangle ordinary words). */
export const COMMON_USER_NAMES: ReadonlySet<string> = new Set([
  'root',
  'user',
  'node',
  'runner',
  'ubuntu',
  'admin',
  'app',
  'work',
  'test',
]);

/** True when the user name identifies a person or machine and must not reach a fixture. */
export function isIdentifyingUserName(user: string | undefined): user is string {
  return !!user && user.length >= 3 && !COMMON_USER_NAMES.has(user.toLowerCase());
}

/** Escapes a literal for use inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
