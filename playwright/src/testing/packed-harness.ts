/**
 * The harness as a user installs it, packed and installed once for every test (and bench) that needs it:
 * `npm pack -w playwright` (its prepack bundles the types) and docs/your-agent.md's install command run in a template
 * project outside the repository, kept in the temp directory under a key of everything the install depends
 * on (the built package, its manifest, the install command). A pack and an install take a minute or more on
 * a loaded 2-core machine; every further caller, in any worker or process, gets a project of its own in
 * about a second. Its use, in a proof or a bench (`@acp-snapshot/playwright/testing`): `await packedProject(dir)`
 * (the guide's install command) or `await packedProject(dir, { install })`, then write the project's files.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../scenario/corpus.js';

/** The tarball `npm pack -w playwright` writes. */
export const TARBALL = 'acp-snapshot-playwright-0.1.0.tgz';

/** docs/your-agent.md's install command (its first ```sh block), which installs `./TARBALL`. */
export async function guideInstall(): Promise<string> {
  const guide = await readFile(join(REPO_ROOT, 'docs/your-agent.md'), 'utf8');
  const install = /```sh\n([\s\S]*?)```/.exec(guide)?.[1]?.trim();
  if (!install) throw new Error('docs/your-agent.md has no ```sh block with the install command');
  return install;
}

/** npm's settings for an install in a test: from the cache where it can, quietly. */
export const OFFLINE_FIRST_NPM = {
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};

/** What an install depends on; the pack's own output (dist/index.d.ts, written by prepack) is left out. */
function installKey(install: string): string {
  const hash = createHash('sha256').update(install);
  hash.update(readFileSync(join(REPO_ROOT, 'playwright/package.json')));
  const dist = join(REPO_ROOT, 'playwright/dist');
  if (!existsSync(join(dist, 'index.js')))
    throw new Error('packed harness: playwright/dist/index.js is missing; build it first: npm run build');
  for (const f of readdirSync(dist, { recursive: true }).map(String).sort()) {
    const file = join(dist, f);
    if (f === 'index.d.ts' || f.endsWith('.map') || !statSync(file).isFile()) continue;
    hash.update(f).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Runs a command line; its exit code and its stdout and stderr interleaved. */
function sh(
  command: string,
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ exitCode: number; all: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      cwd,
      env: { ...process.env, ...env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let all = '';
    child.stdout.on('data', (d) => (all += d));
    child.stderr.on('data', (d) => (all += d));
    child.on('error', (e) => resolve({ exitCode: 127, all: `${all}${e.message}` }));
    child.on('close', (code) => resolve({ exitCode: code ?? 1, all }));
  });
}

/** Packs and installs into `dir`; throws with npm's output when either fails. */
async function packAndInstall(dir: string, install: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const pack = await sh(`npm pack -w playwright --pack-destination ${dir}`, REPO_ROOT);
  if (pack.exitCode !== 0 || !existsSync(join(dir, TARBALL)))
    throw new Error(`packed harness: npm pack -w playwright failed (exit ${pack.exitCode}):\n${pack.all}`);
  await writeFile(
    join(dir, 'package.json'),
    '{ "name": "my-agent-tests", "private": true, "type": "module" }\n',
  );
  const r = await sh(install, dir, OFFLINE_FIRST_NPM);
  if (r.exitCode !== 0)
    throw new Error(`packed harness: \`${install}\` failed (exit ${r.exitCode}):\n${r.all}`);
}

/**
 * Whether `pid` is alive, for a lock another process may have left behind when it was killed mid-install.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The shared template project (a directory holding the tarball, package.json, package-lock.json and
 * node_modules): made by the first caller under a lock directory; the others wait for it.
 */
export async function packedTemplate(install?: string): Promise<string> {
  const command = install ?? (await guideInstall());
  const dir = join(tmpdir(), `acp-snapshot-packed-${installKey(command)}`);
  const ready = join(dir, '.ready');
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 600_000;
  while (!existsSync(ready)) {
    try {
      await mkdir(lock);
    } catch {
      const holder = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => '0'));
      if (holder > 0 && !alive(holder)) await rm(lock, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(
          `packed harness: ${lock} held by pid ${holder} for 10 minutes; remove it and run again`,
        );
      // Another process is packing: poll for its result (an install takes a minute; a poll is nothing).
      else await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      await writeFile(join(lock, 'pid'), String(process.pid));
      if (existsSync(ready)) break;
      const building = `${dir}.${process.pid}`;
      await rm(building, { recursive: true, force: true });
      await packAndInstall(building, command);
      await writeFile(join(building, '.ready'), `${command}\n`);
      await rm(dir, { recursive: true, force: true });
      await rename(building, dir);
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
  return dir;
}

/**
 * A project of its own at `dir` (created) with the packed harness installed as docs/your-agent.md says: the
 * template's package.json, lockfile and tarball copied, its node_modules linked (Node resolves a linked
 * package from its real path, so the harness and Playwright are one copy, as in a real install).
 * Write the project's config and specs into it and run `npx playwright test` there.
 */
export async function packedProject(dir: string, opts: { install?: string } = {}): Promise<string> {
  const template = await packedTemplate(opts.install);
  await mkdir(dir, { recursive: true });
  for (const f of ['package.json', 'package-lock.json', TARBALL]) await cp(join(template, f), join(dir, f));
  await symlink(join(template, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}
