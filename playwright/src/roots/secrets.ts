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
  // The placeholder of tool descriptions' examples (OpenCode's bash tool: `mkdir "/Users/name/My Documents"`).
  'name',
]);

/** True when the user name identifies a person or machine and must not reach a fixture. */
export function isIdentifyingUserName(user: string | undefined): user is string {
  return !!user && user.length >= 3 && !COMMON_USER_NAMES.has(user.toLowerCase());
}

/**
 * True when a home directory identifies someone, so every surface replaces it (`{{realHome}}`) and the guards
 * refuse it. A home of one segment (`/root`, `/app`, `/nonexistent`) is a fixed system path, and one whose last
 * name is a common account (`/home/node`, `/home/runner`, `/var/root`) names nobody: each is the same on every
 * machine with that account, and the same text is a constant elsewhere (codex names its main agent `/root`).
 * Replacing it would turn that constant into the home of whoever replays. See docs/decisions/0015-real-home-root.md.
 */
export function isIdentifyingHome(home: string | undefined): home is string {
  const names = (home ?? '').split('/').filter(Boolean);
  return names.length >= 2 && !COMMON_USER_NAMES.has(names.at(-1)!.toLowerCase());
}

/** Escapes a literal for use inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
