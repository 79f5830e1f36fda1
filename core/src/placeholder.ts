/**
 * The placeholder grammar every package reads and writes: `{{name}}`, a name being a letter followed by
 * letters, digits or underscores (`{{cwd}}`, `{{workspaceParent}}`, `{{userId}}`). Its forms add a suffix
 * inside the braces: `{{name[a:b]}}` a slice of a root streamed in fragments, `{{name:N}}` a normalized id,
 * `{{name#N}}` the Nth distinct match of a pattern rule.
 */

/** A placeholder name, as regular expression source. */
export const PLACEHOLDER_NAME = '[A-Za-z][A-Za-z0-9_]*';

/**
 * A placeholder with the suffix `suffix` (regular expression source, groups allowed after the name's group 1);
 * `flags` as for `RegExp`. `placeholderPattern()` is a plain `{{name}}`.
 */
export function placeholderPattern(suffix = '', flags = ''): RegExp {
  return new RegExp(`\\{\\{(${PLACEHOLDER_NAME})${suffix}\\}\\}`, flags);
}

const WHOLE = new RegExp(`^${placeholderPattern().source}$`);

/** The name of a text that is one whole `{{name}}` (`'{{userId}}'` -> `userId`), else undefined. */
export function placeholderName(text: string): string | undefined {
  return WHOLE.exec(text)?.[1];
}
