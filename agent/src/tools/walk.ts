/** Directories never searched: dependency trees and VCS internals are noise for the model. */
export const SKIPPED_DIRECTORIES = ['node_modules', '.git'] as const;

/** Code-unit order: identical on every machine and locale, unlike localeCompare. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Files under root (local disk) matching a glob, as sorted '/'-separated paths relative to root.
 * Dotfiles are included; node_modules and .git are skipped; symlinks are not followed (no cycles).
 */
export async function findFiles(root: string, pattern: string, signal?: AbortSignal): Promise<string[]> {
  // Imported on first use (tinyglobby, picomatch, fdir): not every session searches files.
  const { glob } = await import('tinyglobby');
  const files = await glob(pattern, {
    cwd: root,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: SKIPPED_DIRECTORIES.map((d) => `**/${d}/**`),
    ...(signal ? { signal } : {}),
  });
  return files.sort(byCodeUnit);
}
