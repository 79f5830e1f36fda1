/**
 * `acp-snapshot init` as a new user meets it: from an empty directory outside the repository, `npm init -y`,
 * the packed harness and @playwright/test installed (from the npm cache where it can), a real agent from npm
 * (gemini-cli, the example's install linked in: installing it again costs a minute), `init --agent`,
 * recording through the printed record script against the example's stand-in model (as a user with a key
 * would against their provider), then `npx playwright test` green keylessly. Run by `npm test` (project examples).
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '@acp-snapshot/emulator';
import { OFFLINE_FIRST_NPM, packedTemplate, REPO_ROOT, TARBALL } from '@acp-snapshot/playwright/testing';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

const EXAMPLE = join(REPO_ROOT, 'examples/gemini-cli');
const AGENT = '@google/gemini-cli';
const KEY = 'local-gemini-key';

const sh = (command: string, cwd: string, env: Record<string, string> = {}) =>
  execa('sh', ['-c', command], { cwd, all: true, reject: false, env: { ...env, FORCE_COLOR: '0' } });

test('from an empty directory: npm init, install, `acp-snapshot init --agent gemini-cli`, record against the stand-in, replay green keylessly', async () => {
  // Two installs and two runs of a real agent (5 tests each): minutes on a loaded 2-core machine.
  test.setTimeout(600_000);
  const installed = join(EXAMPLE, 'node_modules', AGENT);
  expect(
    existsSync(join(installed, 'package.json')),
    `${installed} is missing: install the example first: node scripts/examples.mjs examples/gemini-cli`,
  ).toBe(true);
  const root = await mkdtemp(join(tmpdir(), 'acp-snap-init-'));
  const project = join(root, 'my-agent-tests');
  const emulator = await startEmulator({ scriptPath: join(EXAMPLE, 'stand-in.json') });
  try {
    await test.step('npm init -y; install the packed harness and @playwright/test; the agent', async () => {
      await mkdir(project);
      expect((await sh('npm init -y', project)).exitCode).toBe(0);
      // The tarball `npm pack -w playwright` wrote for the proofs that share it (packed once per build).
      await copyFile(join(await packedTemplate(), TARBALL), join(root, TARBALL));
      const tarball = TARBALL;
      const playwright = JSON.parse(
        readFileSync(join(REPO_ROOT, 'node_modules/@playwright/test/package.json'), 'utf8'),
      ).version;
      const r = await sh(
        `npm install --save-dev ../${tarball} @playwright/test@${playwright}`,
        project,
        OFFLINE_FIRST_NPM,
      );
      expect(r.exitCode, r.all).toBe(0);
      // `npm install --save-dev @google/gemini-cli` as the example installed it: its package, and its bin.
      const bin = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).bin.gemini;
      await mkdir(join(project, 'node_modules/@google'), { recursive: true });
      await symlink(await realpath(installed), join(project, 'node_modules', AGENT));
      await symlink(join('..', AGENT, bin), join(project, 'node_modules/.bin/gemini'));
    });
    const printed = await test.step('npx acp-snapshot init --agent gemini-cli', async () => {
      const r = await sh('npx acp-snapshot init --agent gemini-cli', project);
      expect(r.exitCode, r.all).toBe(0);
      expect(r.all).toContain(
        'init: wrote playwright.config.ts, tests/gemini.spec.ts, tests/seed/notes.txt; package.json scripts "test": "playwright test", "record": "playwright test --project=gemini:record".',
      );
      const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
      // The user's other content is kept; npm's placeholder test script is replaced.
      expect(pkg.name).toBe('my-agent-tests');
      expect(Object.keys(pkg.devDependencies).sort()).toEqual([
        '@acp-snapshot/playwright',
        '@playwright/test',
      ]);
      const record = /^ +MODEL_UPSTREAM_URL=\S+ GEMINI_API_KEY=\S+ (npm run record)$/m.exec(r.all)?.[1];
      const replay = /keylessly.*\n +(npm test)$/m.exec(r.all)?.[1];
      expect([record, replay], r.all).toEqual(['npm run record', 'npm test']);
      return { record: record!, replay: replay! };
    });
    await test.step('record, as printed, against the stand-in model', async () => {
      const r = await sh(printed.record, project, { MODEL_UPSTREAM_URL: emulator.url, GEMINI_API_KEY: KEY });
      await test.info().attach('record.txt', { body: r.all ?? '', contentType: 'text/plain' });
      expect(r.exitCode, r.all).toBe(0);
      expect(r.all).toContain('5 passed');
      const tree = join(project, 'tests/__acp__/gemini.spec.ts/gemini');
      // A directory per test (and the model's large bodies in sidecars/, when there are some).
      expect((await readdir(tree)).filter((d) => d !== 'sidecars').sort()).toEqual([
        'a-cancelled-turn',
        'a-multi-turn-conversation',
        'a-plain-answer',
        'a-tool-call-with-a-permission-request',
        'no-model-initialize-and-a-new-session',
      ]);
      const tool = join(tree, 'a-tool-call-with-a-permission-request');
      expect((await readdir(tool)).sort()).toEqual(['exchanges.jsonl', 'stdout.jsonl', 'workspace.json']);
      expect(await readFile(join(tool, 'workspace.json'), 'utf8')).toContain('milk');
      expect(await readFile(join(tool, 'exchanges.jsonl'), 'utf8')).not.toContain(KEY);
    });
    await emulator.close();
    await test.step('replay keylessly: npx playwright test', async () => {
      const keyless = { MODEL_UPSTREAM_URL: '', GEMINI_API_KEY: '' };
      const r = await sh('npx playwright test', project, keyless);
      await test.info().attach('replay.txt', { body: r.all ?? '', contentType: 'text/plain' });
      expect(r.exitCode, r.all).toBe(0);
      expect(r.all).toMatch(/✓ .*\[gemini\] .*a tool call with a permission request/);
      expect(r.all).toContain('6 passed');
    });
  } finally {
    await emulator.close().catch(() => {});
    await rm(root, { recursive: true, force: true });
  }
});
