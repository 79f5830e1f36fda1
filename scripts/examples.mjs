#!/usr/bin/env node
// Installs the example projects under examples/ as their users would (from their own lockfiles,
// the harness package copied in from playwright/ by install-links), again only when their lockfile or the
// built harness changed since the last install. `.ci/run` calls it; so does the examples proof before it runs them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = 'node_modules/.acp-snapshot-install';

/** What an install depends on: the example's manifest and lockfile, and the harness package it copies. */
function stampOf(dir) {
  const hash = createHash('sha256');
  for (const f of [
    join(dir, 'package.json'),
    join(dir, 'package-lock.json'),
    join(ROOT, 'playwright/package.json'),
  ])
    hash.update(readFileSync(f));
  const dist = join(ROOT, 'playwright/dist');
  if (!existsSync(join(dist, 'index.js')))
    throw new Error('examples: playwright/dist/index.js is missing; build it first: npm run build');
  for (const f of readdirSync(dist, { recursive: true }).sort()) {
    const file = join(dist, f);
    if (!f.endsWith('.map') && statSync(file).isFile()) hash.update(f).update(readFileSync(file));
  }
  return hash.digest('hex');
}

export function examples() {
  const base = join(ROOT, 'examples');
  return readdirSync(base, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(base, d.name, 'package.json')))
    .map((d) => join(base, d.name));
}

/** Installs every example, or only the one in `only` (a directory). */
export function installExamples(log = console.log, only = undefined) {
  for (const dir of examples().filter((d) => only === undefined || d === only)) {
    const stamp = stampOf(dir);
    const stampFile = join(dir, STAMP);
    if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) continue;
    const started = Date.now();
    // npm sees a copied directory dependency as up to date whatever its source became: drop the copy.
    rmSync(join(dir, 'node_modules/@acp-snapshot'), { recursive: true, force: true });
    // `npm install` from the lockfile, not `npm ci`: npm leaves platform packages it cannot install here
    // (qwen's optional clipboard binaries for other systems) out of the lockfile, and then `npm ci` refuses it
    // as out of sync. --no-save keeps the lockfile as committed.
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund'], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    writeFileSync(stampFile, stamp);
    log(
      `examples: installed ${dir.slice(ROOT.length + 1)} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    // An example's directory as the argument installs that one only.
    const only = process.argv[2];
    installExamples(console.log, only === undefined ? undefined : resolve(only));
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
