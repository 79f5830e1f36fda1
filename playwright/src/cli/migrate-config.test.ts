/**
 * `acp-snapshot migrate-config` run as a user runs it, in a scratch project: the config it rewrites (byte for
 * byte: only the rules change, comments, quotes and layout stay), the diff of a dry run, and what it refuses,
 * with its exit codes.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

const MAIN = join(import.meta.dirname, 'main.ts');
/** The package's command, as built (`npm run build`): the compiler in a bundle of its own beside cli.js. */
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const TSX = import.meta.resolve('tsx');

// Each command run loads the TypeScript compiler from source through tsx: seconds on a loaded machine.
test.describe.configure({ timeout: 120_000 });

let project: string;
test.beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'migrate-config-'));
});
test.afterEach(() => rm(project, { recursive: true, force: true }));

async function migrate(...args: string[]) {
  return run(['--import', TSX, MAIN], args);
}

async function run(command: string[], args: string[]) {
  const r = await execa(process.execPath, [...command, 'migrate-config', ...args], {
    cwd: project,
    reject: false,
    env: { FORCE_COLOR: '0' },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** A config as docs/agents.md showed it before the one spelling, with the comments and quirks of a real one. */
const BEFORE = `// Our agents, recorded once and replayed keylessly.
import { agents, defineAcpConfig } from '@acp-snapshot/playwright';

const mine = {
  command: ['node', 'dist/agent.js', '--acp'],
  normalize: {
    paths: ['result.agentInfo.version', '/result/sessionId'],
    patterns: [{ pattern: 'run-\\\\d+', name: 'run' }],
  },
  requestIds: [{ path: "input[*].id", name: "itemId" }], // ids of the input items
};

export default defineAcpConfig({
  agents: { codex: agents.codexAcp(), mine },
  model: {
    kind: 'http',
    ids: [
      /* the session's cache key */ { path: 'prompt_cache_key', name: 'cacheKey' },
      {
        path: \`**.session_id\`,
        name: 'session',
      },
      { pattern: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', name: 'uuid' },
      { path: '/metadata/user_id', placeholder: '{{userId}}' }, // already in the one spelling
    ],
  },
  playwright: { projects: [{ name: 'setup', testMatch: /setup\\.ts/ }] },
});
`;

const AFTER = `// Our agents, recorded once and replayed keylessly.
import { agents, defineAcpConfig } from '@acp-snapshot/playwright';

const mine = {
  command: ['node', 'dist/agent.js', '--acp'],
  normalize: {
    paths: ['/result/agentInfo/version', '/result/sessionId'],
    patterns: [{ pattern: 'run-\\\\d+', placeholder: '{{run}}' }],
  },
  requestIds: [{ path: "/input/*/id", placeholder: "{{itemId}}" }], // ids of the input items
};

export default defineAcpConfig({
  agents: { codex: agents.codexAcp(), mine },
  model: {
    kind: 'http',
    ids: [
      /* the session's cache key */ { path: '/prompt_cache_key', placeholder: '{{cacheKey}}' },
      {
        path: \`/**/session_id\`,
        placeholder: '{{session}}',
      },
      { pattern: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', placeholder: '{{uuid}}' },
      { path: '/metadata/user_id', placeholder: '{{userId}}' }, // already in the one spelling
    ],
  },
  playwright: { projects: [{ name: 'setup', testMatch: /setup\\.ts/ }] },
});
`;

test('rewrites the rules of playwright.config.ts in place, byte for byte as expected; a second run has nothing to do', async () => {
  await writeFile(join(project, 'playwright.config.ts'), BEFORE);
  const r = await migrate();
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('migrate-config: 6 rule(s) rewritten in playwright.config.ts');
  expect(r.exitCode).toBe(0);
  expect(await readFile(join(project, 'playwright.config.ts'), 'utf8')).toBe(AFTER);
  const again = await migrate('playwright.config.ts');
  expect(again.stdout).toBe(
    'migrate-config: playwright.config.ts: no rule in the earlier spelling; nothing to do',
  );
  expect(again.exitCode).toBe(0);
});

test('a dry run prints the diff and writes nothing', async () => {
  await writeFile(
    join(project, 'acp.config.mjs'),
    "export default { model: { kind: 'http', ids: [{ path: 'prompt_cache_key', name: 'cacheKey' }] } };\n",
  );
  const r = await migrate('acp.config.mjs', '--dry-run');
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain(
    "-export default { model: { kind: 'http', ids: [{ path: 'prompt_cache_key', name: 'cacheKey' }] } };\n" +
      "+export default { model: { kind: 'http', ids: [{ path: '/prompt_cache_key', placeholder: '{{cacheKey}}' }] } };",
  );
  expect(r.stdout).toContain('--- a/acp.config.mjs\n+++ b/acp.config.mjs');
  expect(r.stdout).toContain(
    'migrate-config: 1 rule(s) would be rewritten in acp.config.mjs (dry run: nothing written)',
  );
  expect(await readFile(join(project, 'acp.config.mjs'), 'utf8')).toContain("name: 'cacheKey'");
});

test('a missing file, no config, a bad option: exit 2 with what to run', async () => {
  const missing = await migrate('configs/playwright.config.ts');
  expect(missing.exitCode).toBe(2);
  expect(missing.stderr).toBe(
    `migrate-config: ${join(project, 'configs/playwright.config.ts')} does not exist; name your Playwright config: npx acp-snapshot migrate-config path/to/playwright.config.ts`,
  );
  const none = await migrate();
  expect(none.exitCode).toBe(2);
  expect(none.stderr).toBe(
    `migrate-config: no playwright.config.* in ${project}; run it in your project's directory, or name the file: npx acp-snapshot migrate-config path/to/playwright.config.ts`,
  );
  const option = await migrate('--write');
  expect(option.exitCode).toBe(2);
  expect(option.stderr).toBe(
    'migrate-config: unknown option --write\nusage: npx acp-snapshot migrate-config [FILE] [--dry-run]   (FILE: default playwright.config.ts)',
  );
});

test('a rule it cannot rewrite: exit 1 naming its line and column and what to do, and the file is left as it was', async () => {
  const text = `const key = 'cacheKey';
export default {
  model: {
    kind: 'http',
    ids: [
      { path: 'prompt_cache_key', name: key },
      { path: 'metadata.user_id', name: 'userId', placeholder: '{{userId}}' },
    ],
  },
};
`;
  await writeFile(join(project, 'playwright.config.ts'), text);
  const r = await migrate();
  expect(r.exitCode).toBe(1);
  expect(r.stderr.split('\n')).toEqual([
    "migrate-config: playwright.config.ts:6:35: the rule's `name` is not a string literal; write the rule as { path: '/json/pointer', placeholder: '{{name}}' } or { pattern, placeholder: '{{name}}' } by hand",
    'migrate-config: playwright.config.ts:7:35: the rule has both `name` and `placeholder`; keep one placeholder and drop `name`',
    'migrate-config: playwright.config.ts is unchanged (2 rule(s) it cannot rewrite)',
  ]);
  expect(await readFile(join(project, 'playwright.config.ts'), 'utf8')).toBe(text);
});

test("the built package's command loads its own bundle and rewrites as the source does", async () => {
  await writeFile(join(project, 'playwright.config.ts'), BEFORE);
  const r = await run([CLI], []);
  expect(r.stdout).toBe('migrate-config: 6 rule(s) rewritten in playwright.config.ts');
  expect(r.exitCode).toBe(0);
  expect(await readFile(join(project, 'playwright.config.ts'), 'utf8')).toBe(AFTER);
});
