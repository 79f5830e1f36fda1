/**
 * The repository's source files as the checks over it see them (the layering test, the longest-functions
 * figures): what git tracks or would track, and which of them are tests.
 */
import { execFileSync } from 'node:child_process';

/** Tests and test helpers: `*.test.ts`, `*.spec.ts`, files under test/ or testing/, and `*testing.ts` helpers. */
export const isTest = (f: string) =>
  /\.(test|spec)\.[mc]?[jt]s$/.test(f) || /\/(test|testing)\//.test(f) || /(^|[/-])testing\.ts$/.test(f);

/** Every file git tracks or would track under `root` (ignored files left out). */
export function trackedFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && !f.includes('node_modules/'));
}

/** The TypeScript and ES module files among them, fixtures excluded. */
export function trackedSources(root: string): string[] {
  return trackedFiles(root).filter((f) => /\.(ts|mts|mjs)$/.test(f) && !f.startsWith('fixtures/'));
}
