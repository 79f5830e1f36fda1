// A message a user of @acp-snapshot/playwright sees never points at this repository's files (`docs/x.md`,
// `playwright/src/x.ts`, `model-http/README.md`): the package ships its own README and nothing else, so a message
// cites a section of that through core's `readmeSection('Provider faults')`, a heading docs-links.test.ts checks.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from '@playwright/test';

const ROOT = join(import.meta.dirname, '..');
/**
 * The packages the published bundle holds whose messages reach a user (the harness and what it inlines: a session
 * log's and a replay override's errors reach the author of an agent that writes the log). The emulator is inlined
 * too, but its script errors name scripts of this repository only (the corpus's and the examples' stand-ins).
 */
const PUBLISHED = ['playwright/src', 'conformance/src', 'model-http/src', 'core/src', 'session-log/src'];
const FOLDERS =
  'docs|playwright|conformance|core|model-http|emulator|session-log|llm-replay|agent|scripts|e2e|examples';
/** A repository path: a doc, or a source or README file of one of its folders (not `node_modules/...`). */
const REPO_PATH = new RegExp(
  String.raw`(?<![\w/.@-])(?:docs/[\w/.-]+\.md|(?:${FOLDERS})/[\w/.-]*\.(?:md|ts|mjs))`,
);

/** The lines of runtime code that can end up in a message: not comments, tests or test helpers. */
export function repoPathsInMessages(file: string, text: string): string[] {
  const out: string[] = [];
  let inComment = false;
  text.split('\n').forEach((line, i) => {
    const t = line.trim();
    if (inComment || t.startsWith('/*')) inComment = !t.includes('*/');
    if (inComment || t.startsWith('*') || t.startsWith('//') || t.startsWith('/*')) return;
    const code = line.replace(/\s\/\/ .*$/, '');
    const m = REPO_PATH.exec(code);
    if (m) out.push(`${file}:${i + 1}: ${m[0]}`);
  });
  return out;
}

test('no message of the published package names a file of this repository', () => {
  const found: string[] = [];
  for (const dir of PUBLISHED)
    for (const e of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      const file = relative(ROOT, join(e.parentPath, e.name));
      if (
        !e.isFile() ||
        !file.endsWith('.ts') ||
        /\.(test|spec)\.ts$/.test(file) ||
        file.includes('/testing/')
      )
        continue;
      found.push(...repoPathsInMessages(file, readFileSync(join(ROOT, file), 'utf8')));
    }
  expect(
    found,
    "cite a section of the @acp-snapshot/playwright README instead: readmeSection('Public API') of @acp-snapshot/core",
  ).toEqual([]);
});

test('the scan finds a repository path in a string, and none in comments or in a user path', () => {
  const code = [
    '/**',
    ' * see docs/scenarios.md',
    ' */',
    '// and playwright/src/profile.ts',
    "throw new Error('bad profile (playwright/src/profile.ts)');",
    'const a = `see docs/scenarios.md, "Adding a scenario"`;',
    "const b = 'node_modules/@acp-snapshot/playwright/README.md and node_modules/@playwright/test/package.json';",
    "const c = 'fixtures/scenarios/NAME/input.json'; // see docs/x.md",
    'const d = "see model-http/README.md";',
  ].join('\n');
  expect(repoPathsInMessages('x.ts', code)).toEqual([
    'x.ts:5: playwright/src/profile.ts',
    'x.ts:6: docs/scenarios.md',
    'x.ts:9: model-http/README.md',
  ]);
});
