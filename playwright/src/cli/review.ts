// `npm run review -- [NAME...] [--base REF] [--allow-nondeterminism]`: compares the working tree's
// fixtures with git's HEAD (or REF), model call by model call (playwright/src/modes/review.ts), for every scenario
// whose session.jsonl or replay.override.json changed, or the named ones. Exit codes: 0 nothing
// flagged (or --allow-nondeterminism), 1 a call's response changed while its request did not,
// 2 bad usage, not a git repository, or a fixture that cannot be read. Exchange logs (`exchanges.jsonl`, the
// HTTP model's recordings) changed anywhere in the project are listed too, exchange by exchange: kept,
// re-recorded (the same request, another answer: flagged like a call), added, removed.

import { existsSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeUtf8File, handWrittenFileText, Utf8Error } from '@acp-snapshot/core';
import { exchangeLogChanges, formatLogChanges } from '@acp-snapshot/model-http';
import { execa } from 'execa';
import { type FixtureTexts, ReviewError, reviewScenario, type ScenarioReview } from '../modes/review.js';
import { formatReview, reviewAdvice } from '../modes/review-format.js';
import { discoverScenarios, fixturesDir, REPO_ROOT, unknownScenarios } from '../scenario/corpus.js';

const USAGE = 'usage: npm run review -- [NAME...] [--base REF] [--allow-nondeterminism]';
const REVIEWED = ['session.jsonl', 'replay.override.json'] as const;

/** Stops the command with exit code 2 and a message saying what to do. */
class UsageError extends Error {}

async function git(top: string, args: readonly string[]) {
  const r = await execa('git', args, {
    cwd: top,
    reject: false,
    stripFinalNewline: false,
    encoding: 'buffer',
  });
  if (r.exitCode === undefined)
    throw new UsageError(`cannot run git (${r.message}): npm run review compares with git; install it`);
  return { ok: r.exitCode === 0, out: Buffer.from(r.stdout), err: Buffer.from(r.stderr).toString().trim() };
}

/** The top of the git work tree holding `dir`. */
async function workTreeTop(dir: string): Promise<string> {
  const r = await git(dir, ['rev-parse', '--show-toplevel']);
  if (!r.ok)
    throw new UsageError(
      `${dir} is not inside a git repository (git: ${r.err}). npm run review compares the working tree's ` +
        'fixtures with a git commit: run it in a clone of the project, or set ACP_SNAPSHOT_FIXTURES to fixtures inside one.',
    );
  return realpathSync(r.out.toString().trim());
}

async function checkBase(top: string, base: string): Promise<void> {
  if ((await git(top, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`])).ok) return;
  if (base === 'HEAD')
    throw new UsageError(
      `the repository at ${top} has no commit yet: commit the fixtures, then npm run review compares later changes with them.`,
    );
  throw new UsageError(
    `${base} is not a commit of the repository at ${top} (git log --oneline lists them): ${USAGE}`,
  );
}

/** Paths under `rel` that differ between `base` and the working tree (untracked ones included). */
async function changedPaths(top: string, rel: string, base: string): Promise<string[]> {
  const diff = await git(top, [
    'diff',
    '--name-only',
    '--no-renames',
    '--no-ext-diff',
    '-z',
    base,
    '--',
    rel,
  ]);
  const untracked = await git(top, ['ls-files', '--others', '--exclude-standard', '-z', '--', rel]);
  for (const r of [diff, untracked]) if (!r.ok) throw new UsageError(`git failed in ${top}: ${r.err}`);
  return [...new Set(`${diff.out}\0${untracked.out}`.split('\0'))].filter((p) => p !== '');
}

/** Scenarios whose reviewed files differ between `base` and the working tree (untracked ones included). */
async function changedScenarios(top: string, scenariosRel: string, base: string): Promise<string[]> {
  const names = new Set<string>();
  for (const path of await changedPaths(top, scenariosRel, base)) {
    const rest = path.startsWith(`${scenariosRel}/`) ? path.slice(scenariosRel.length + 1).split('/') : [];
    if (rest.length === 2 && (REVIEWED as readonly string[]).includes(rest[1]!)) names.add(rest[0]!);
  }
  return [...names].sort();
}

function decode(bytes: Uint8Array, file: string, kind: (typeof REVIEWED)[number]): string {
  try {
    return kind === 'session.jsonl' ? decodeUtf8File(bytes, file) : handWrittenFileText(bytes, file);
  } catch (e) {
    throw e instanceof Utf8Error ? new ReviewError(e.message) : e;
  }
}

interface Version {
  texts: FixtureTexts;
  names: { session: string; override: string };
}

/** A scenario's reviewed files at `base` (absent where git has none). */
async function atBase(top: string, base: string, rel: string): Promise<Version> {
  const out: Version = { texts: {}, names: { session: '', override: '' } };
  for (const kind of REVIEWED) {
    const name = `${base}:${rel}/${kind}`;
    const r = await git(top, ['show', name]);
    const key = kind === 'session.jsonl' ? 'session' : 'override';
    out.names[key] = name;
    if (r.ok) out.texts[key] = decode(r.out, name, kind);
  }
  return out;
}

/** A scenario's reviewed files in the working tree. */
async function inWorkTree(top: string, rel: string): Promise<Version> {
  const out: Version = { texts: {}, names: { session: '', override: '' } };
  for (const kind of REVIEWED) {
    const name = `${rel}/${kind}`;
    const key = kind === 'session.jsonl' ? 'session' : 'override';
    out.names[key] = name;
    const file = join(top, name);
    if (existsSync(file)) out.texts[key] = decode(await readFile(file), name, kind);
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      base: { type: 'string', default: 'HEAD' },
      'allow-nondeterminism': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const base = values.base;
  const dir = fixturesDir();
  // A project without a scenario corpus (defineAcpConfig's) has only exchange logs to review.
  const corpus = existsSync(join(dir, 'scenarios'));
  if (!corpus && positionals.length)
    throw new UsageError(`${join(dir, 'scenarios')} does not exist: ${USAGE}`);
  const bad = corpus ? unknownScenarios(positionals, discoverScenarios(dir, {})) : undefined;
  if (bad) throw new UsageError(bad);
  const top = await workTreeTop(corpus ? dir : REPO_ROOT);
  await checkBase(top, base);
  const logs = positionals.length ? [] : await exchangeLogReviews(top, base, corpus ? dir : REPO_ROOT);
  const scenariosRel = corpus
    ? relative(top, realpathSync(join(dir, 'scenarios')))
        .split(sep)
        .join('/')
    : '';
  const names = positionals.length || !corpus ? positionals : await changedScenarios(top, scenariosRel, base);
  if (names.length === 0 && logs.length === 0) {
    console.log(`review: no fixture changes against ${base}`);
    return 0;
  }
  const rerecorded = logs.flatMap((l) => l.rerecorded);
  if (names.length === 0) return verdict(rerecorded, values['allow-nondeterminism']);
  const reviews: ScenarioReview[] = [];
  for (const name of names) {
    const rel = `${scenariosRel}/${name}`;
    reviews.push(reviewScenario(name, await atBase(top, base, rel), await inWorkTree(top, rel)));
  }
  // Scenarios with flagged calls first: they are what a reviewer must look at.
  reviews.sort((a, b) => Number(b.flagged.length > 0) - Number(a.flagged.length > 0));
  console.log(`review: ${names.length} scenario(s) against ${base}, call by call (request / response):\n`);
  for (const r of reviews) console.log(`${formatReview(r, reviewAdvice(r.scenario))}\n`);
  const flagged = reviews.flatMap((r) => r.flagged.map((c) => `${r.scenario} call ${c}`));
  return verdict([...flagged, ...rerecorded], values['allow-nondeterminism']);
}

/** The exit code for the calls and exchanges whose response changed while their request did not. */
function verdict(flagged: string[], allow: boolean | undefined): number {
  if (flagged.length === 0) {
    console.log('review: nothing flagged (no response changed while its request stayed the same).');
    return 0;
  }
  console.log(
    `review: ${flagged.length} call(s) flagged (${flagged.join(', ')}): the response changed while the request did not.`,
  );
  if (allow) {
    console.log('review: kept knowingly (--allow-nondeterminism): exit 0.');
    return 0;
  }
  console.log('review: exit 1; pass --allow-nondeterminism to keep them knowingly and exit 0.');
  return 1;
}

/**
 * Every exchange log (`exchanges.jsonl`) of the project that differs from `base`, printed exchange by
 * exchange; returns the re-recorded exchanges (same request, new answer) to flag.
 */
async function exchangeLogReviews(
  top: string,
  base: string,
  fixtures: string,
): Promise<Array<{ rerecorded: string[] }>> {
  // The project's, or only the fixtures' when they lie in another work tree (ACP_SNAPSHOT_FIXTURES).
  const inside = (dir: string) => relative(top, realpathSync(dir)).split(sep).join('/');
  const root = inside(REPO_ROOT);
  const project = (root.startsWith('..') ? inside(fixtures) : root) || '.';
  const files = (await changedPaths(top, project, base))
    .filter((p) => p === 'exchanges.jsonl' || p.endsWith('/exchanges.jsonl'))
    .sort();
  if (files.length === 0) return [];
  console.log(`review: ${files.length} exchange log(s) against ${base}, exchange by exchange:\n`);
  const out: Array<{ rerecorded: string[] }> = [];
  for (const file of files) {
    const old = await git(top, ['show', `${base}:${file}`]);
    const now = join(top, file);
    const after = existsSync(now) ? await readFile(now, 'utf8') : '';
    const changes = exchangeLogChanges(old.ok ? old.out.toString('utf8') : undefined, after);
    console.log(`${file}${existsSync(now) ? '' : ' (deleted)'}`);
    console.log(`${formatLogChanges(changes).join('\n')}\n`);
    out.push({ rerecorded: changes.rerecorded.map((e) => `${file} exchange ${e.index}`) });
  }
  return out;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  const badOption = (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  if (!(e instanceof UsageError || e instanceof ReviewError || badOption)) throw e;
  console.error(`review: ${(e as Error).message}${badOption ? `\n${USAGE}` : ''}`);
  process.exitCode = 2;
}
