/**
 * The commands a message tells its reader to run to fix what it reports, spelled once for every package (the
 * guards, the verdicts, record and refresh, the replay plugin), so a renamed script changes one place; and the
 * docs it sends them to.
 */

const named = (names: readonly string[]) => (names.length ? ` -- ${names.join(' ')}` : '');

/** Records the named scenarios against a model (every scenario when none is named). */
export function recordCommand(...names: string[]): string {
  return `npm run record${named(names)}`;
}

/** Re-derives the named scenarios' fixtures from the current code, keylessly (every scenario when none). */
export function refreshCommand(...names: string[]): string {
  return `npm run refresh${named(names)}`;
}

/** Rewrites the stdout snapshots of the scenarios whose title matches `grep` (every one without it). */
export function updateSnapshotsCommand(grep?: string): string {
  return `npm run test:snapshot:update${grep === undefined ? '' : ` -- -g ${grep}`}`;
}

/** Accepts the changed snapshots of the spec tests whose title matches `title` (Playwright's own flag). */
export function acceptSnapshotsCommand(title: string): string {
  return projectTestsCommand(undefined, title, '--update-snapshots');
}

/** Runs a Playwright project's tests whose title matches `grep` (as the shell reads it; all without it), with flags. */
export function projectTestsCommand(
  project: string | undefined,
  grep: string | undefined,
  ...flags: string[]
): string {
  const parts = ['npx playwright test', ...(project ? [`--project=${project}`] : []), ...flags];
  return [...parts, ...(grep === undefined ? [] : [`-g ${grep}`])].join(' ');
}

/**
 * Where a message sends its reader to read more: a section of the README the published package ships (its users
 * have none of this repository's docs), and where that README is once installed. docs-links.test.ts checks that
 * each heading cited through this is one of playwright/README.md.
 */
export function readmeSection(heading: string): string {
  return `the @acp-snapshot/playwright README (node_modules/@acp-snapshot/playwright/README.md), "${heading}"`;
}
