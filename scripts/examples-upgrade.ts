/**
 * Keeping up with the agents: moves an example project (examples/NAME) to its agent's latest npm version (or
 * `--version X`), installs it, re-records every test against the bundled emulator serving the example's
 * stand-in.json, replays keylessly three times over, and reports what changed in the agent's ACP wire and model
 * requests. Green: the profile's proven versions gain the version and docs/agents.md's table is rewritten. Red:
 * the example is put back as it was (the new recording kept in .tmp/ for a look) and the command exits 1.
 *
 *   npm run examples:upgrade -- NAME [NAME...] | --all     [--version X] [--check]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { startEmulator } from '@acp-snapshot/emulator';
import { referencedSidecars } from '@acp-snapshot/model-http';
import { execa } from 'execa';
import {
  EXAMPLES_DIR,
  exampleDirs,
  lockedVersion,
  profileOf,
  REPLAYED,
  replayExample,
  writeCompat,
  // @ts-expect-error: a plain .mjs script without type declarations
} from './compat-table.mjs';
// @ts-expect-error: a plain .mjs script without type declarations
import { installExamples } from './examples.mjs';
import { fixtureChanges, formatChanges, readRecordings } from './fixture-changes.js';

const ROOT = resolve(import.meta.dirname, '..');
const rel = (p: string) => relative(ROOT, p) || '.';

interface Profile {
  name: string;
  file: string;
  pkg: string;
  proven: string[];
}

/** What an upgrade touches, kept before it starts so a failure puts every byte back. */
const KEPT = ['package.json', 'package-lock.json', REPLAYED as string, 'tests/__acp__'];

/** The latest version of `pkg` on the registry the user's npm is configured with. */
export function latestVersion(pkg: string): string {
  return execFileSync('npm', ['view', pkg, 'version'], { encoding: 'utf8' }).trim();
}

/** The config's agent key (the `NAME:record` project) and the variable its recording reads the key from. */
export function recordSetup(dir: string): { project: string; keyEnv: string; upstreamEnv: string } {
  const config = readFileSync(join(dir, 'playwright.config.ts'), 'utf8');
  const project = /agents:\s*\{\s*['"]?([\w-]+)['"]?\s*:/.exec(config)?.[1];
  const keyEnv = /apiKeyEnv:\s*'(\w+)'/.exec(config)?.[1];
  const upstreamEnv = /baseUrlEnv:\s*'(\w+)'/.exec(config)?.[1];
  if (!project || !keyEnv || !upstreamEnv)
    throw new Error(
      `${rel(join(dir, 'playwright.config.ts'))}: expected agents: { NAME: ... } and record.upstream { baseUrlEnv, apiKeyEnv }`,
    );
  return { project, keyEnv, upstreamEnv };
}

/** The profile source with `version` added (last) to its proven versions. */
export function withProven(source: string, version: string): string {
  return source.replace(/\bproven: \[([^\]]*)\]/, (all, list: string) => {
    const versions = [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    if (versions.includes(version)) return all;
    return `proven: [${[...versions, version].map((v) => `'${v}'`).join(', ')}]`;
  });
}

/** Deletes the sidecars no exchange log of their project references (a re-recording leaves the old ones). */
export function pruneExampleSidecars(acpDir: string): string[] {
  const removed: string[] = [];
  if (!existsSync(acpDir)) return removed;
  for (const file of readdirSync(acpDir))
    for (const project of readdirSync(join(acpDir, file))) {
      const dir = join(acpDir, file, project);
      const sidecars = join(dir, 'sidecars');
      if (!existsSync(sidecars)) continue;
      const refs = new Set<string>();
      for (const test of readdirSync(dir)) {
        const log = join(dir, test, 'exchanges.jsonl');
        if (existsSync(log))
          for (const h of referencedSidecars(readFileSync(log, 'utf8'), sidecars)) refs.add(h);
      }
      for (const name of readdirSync(sidecars))
        if (/^[0-9a-f]{64}\.json$/.test(name) && !refs.has(name.slice(0, 64))) {
          rmSync(join(sidecars, name));
          removed.push(join(sidecars, name));
        }
      if (readdirSync(sidecars).length === 0) rmSync(sidecars, { recursive: true });
    }
  return removed;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): number {
  try {
    execFileSync(cmd, args, {
      cwd,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, ...env },
    });
    return 0;
  } catch (e) {
    return (e as { status?: number }).status ?? 1;
  }
}

/**
 * Re-records the example's recorded spec files (those with a tree under tests/__acp__; drift tests replay
 * another test's recording) against the emulator serving its stand-in; returns the exit code.
 */
async function rerecord(dir: string): Promise<number> {
  const { project, keyEnv, upstreamEnv } = recordSetup(dir);
  const specs = readdirSync(join(dir, 'tests/__acp__')).map((f) => `tests/${f}`);
  const emulator = await startEmulator({ scriptPath: join(dir, 'stand-in.json') });
  try {
    console.log(`upgrade: re-recording (${project}:record) against the emulator at ${emulator.url}`);
    // Asynchronously: the emulator serves from this process's event loop.
    const r = await execa(
      'npx',
      ['playwright', 'test', `--project=${project}:record`, '--reporter=dot', ...specs],
      {
        cwd: dir,
        stdio: ['ignore', 'inherit', 'inherit'],
        reject: false,
        env: { CI: '1', FORCE_COLOR: '0', [upstreamEnv]: emulator.url, [keyEnv]: 'local' },
      },
    );
    return r.exitCode ?? 1;
  } finally {
    await emulator.close();
  }
}

interface Outcome {
  name: string;
  from: string;
  to: string;
  green: boolean;
  detail: string;
}

/** Upgrades one example; on any failure puts it back as it was. */
async function upgrade(dir: string, target: string | undefined): Promise<Outcome> {
  const name = basename(dir);
  const profile = profileOf(dir) as Profile;
  const from = lockedVersion(dir, profile.pkg) as string;
  const to = target ?? latestVersion(profile.pkg);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const backup = join(ROOT, '.tmp', `upgrade-${name}-${stamp}`, 'before');
  const after = join(ROOT, '.tmp', `upgrade-${name}-${stamp}`, 'after');
  console.log(
    `upgrade: examples/${name}: ${profile.pkg} ${from} -> ${to}${from === to ? ' (the same: a re-record)' : ''}`,
  );
  console.log(
    `upgrade: if interrupted, go back with: git checkout examples/${name} && node scripts/examples.mjs examples/${name}`,
  );
  mkdirSync(backup, { recursive: true });
  for (const f of KEPT)
    if (existsSync(join(dir, f))) cpSync(join(dir, f), join(backup, f), { recursive: true });
  const restore = () => {
    for (const f of KEPT) {
      rmSync(join(dir, f), { recursive: true, force: true });
      if (existsSync(join(backup, f))) cpSync(join(backup, f), join(dir, f), { recursive: true });
    }
    installExamples(console.log, dir);
  };
  let rerecorded = false;
  const fail = (why: string, changes = ''): Outcome => {
    if (rerecorded) cpSync(join(dir, 'tests/__acp__'), after, { recursive: true });
    restore();
    console.log(
      `upgrade: examples/${name} put back at ${profile.pkg} ${from} (package.json, lockfile, ${REPLAYED}, tests/__acp__ as before; node_modules as the lockfile says).` +
        (rerecorded
          ? ` The new recording is in ${rel(after)}; the one before in ${rel(join(backup, 'tests/__acp__'))}.`
          : ''),
    );
    return { name, from, to, green: false, detail: `${why}${changes ? `\n${changes}` : ''}` };
  };
  try {
    if (from !== to) {
      console.log(`upgrade: npm install --save-exact ${profile.pkg}@${to}`);
      if (
        run('npm', ['install', '--save-exact', '--no-audit', '--no-fund', `${profile.pkg}@${to}`], dir) !== 0
      )
        return fail(`npm install ${profile.pkg}@${to} failed (see above)`);
    }
    installExamples(console.log, dir);
    const before = readRecordings(join(dir, 'tests/__acp__'));
    rerecorded = true;
    const recorded = await rerecord(dir);
    pruneExampleSidecars(join(dir, 'tests/__acp__'));
    const changes = formatChanges(fixtureChanges(before, readRecordings(join(dir, 'tests/__acp__'))));
    console.log(
      `upgrade: what changed in the agent's ACP wire and model requests (${from} -> ${to}):\n${changes}`,
    );
    if (recorded !== 0) return fail(`the re-recording failed (exit ${recorded}; see above)`, changes);
    if (run('npm', ['run', 'check'], dir) !== 0)
      return fail('npm run check failed on the new recording', changes);
    const { code, kept } = replayExample(dir);
    const red = (
      kept.tests as Array<{ title: string; statuses: string[]; fixme?: string; skip?: string }>
    ).filter(
      (t) => t.fixme === undefined && t.skip === undefined && !t.statuses.every((s) => s === 'passed'),
    );
    if (code !== 0 || red.length)
      return fail(
        `the keyless replay is red (exit ${code}): ${red.map((t) => `${t.title} [${t.statuses.join(', ')}]`).join('; ')}`,
        changes,
      );
    writeFileSync(profile.file, withProven(readFileSync(profile.file, 'utf8'), to));
    writeCompat();
    return { name, from, to, green: true, detail: changes };
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }
}

function usage(): never {
  throw new Error(
    'usage: npm run examples:upgrade -- NAME [NAME...] | --all [--version X] [--check]\n' +
      `  NAME: a folder of examples/ (${exampleDirs()
        .map((d: string) => basename(d))
        .join(', ')})`,
  );
}

async function main(argv: string[]): Promise<number> {
  const at = argv.indexOf('--version');
  const version = at >= 0 ? argv[at + 1] : undefined;
  if (at >= 0 && !version) usage();
  const rest = at < 0 ? argv : argv.filter((_a, i) => i !== at && i !== at + 1);
  const check = rest.includes('--check');
  const names = rest.filter((a) => !a.startsWith('--'));
  const dirs: string[] = rest.includes('--all') ? exampleDirs() : names.map((n) => resolve(EXAMPLES_DIR, n));
  if (!dirs.length) usage();
  if (version && dirs.length !== 1) throw new Error('--version X moves one example; name it');
  for (const d of dirs)
    if (!existsSync(join(d, 'package.json')))
      throw new Error(
        `examples/${basename(d)}: no such example project; see npm run examples:upgrade -- --help`,
      );
  if (check) {
    // Only says which examples are behind their agent's latest version.
    let behind = 0;
    for (const d of dirs) {
      const profile = profileOf(d) as Profile;
      const installed = lockedVersion(d, profile.pkg) as string;
      const latest = latestVersion(profile.pkg);
      if (latest !== installed) behind++;
      console.log(
        `examples/${basename(d)}: ${profile.pkg} ${installed}${latest === installed ? ' (latest)' : `, latest ${latest}: npm run examples:upgrade -- ${basename(d)}`}`,
      );
    }
    return behind ? 1 : 0;
  }
  const outcomes: Outcome[] = [];
  for (const d of dirs) outcomes.push(await upgrade(d, version));
  console.log('\nupgrade: summary');
  for (const o of outcomes)
    console.log(
      o.green
        ? `  examples/${o.name}: ${o.from} -> ${o.to}, replay green x3; profile proven on ${o.to}; docs/agents.md rewritten. Review: git diff -- examples/${o.name} playwright/src/agents docs/agents.md`
        : `  examples/${o.name}: stays at ${o.from} (${o.to} not taken): ${o.detail.split('\n')[0]}`,
    );
  return outcomes.every((o) => o.green) ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`examples:upgrade: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(2);
    },
  );
}
