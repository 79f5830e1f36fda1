/** Secrets: no API key, bearer token, authorization header, real home directory or user name in any fixture file. */
import { readFile } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import { RootReplacer } from '@acp-snapshot/session-log';
import {
  COMMON_USER_NAMES,
  escapeRegExp,
  isIdentifyingHome,
  isIdentifyingUserName,
} from '../roots/secrets.js';
import { type GuardContext, type GuardOptions, walkFiles } from './guard-context.js';

export async function checkSecrets(ctx: GuardContext): Promise<void> {
  const { opts, fixturesDir, show, add } = ctx;
  const patterns = secretPatterns(opts);
  for (const file of await walkFiles(fixturesDir))
    for (const { line, what } of await secretsIn(file, patterns))
      add(
        'secrets',
        `${show(file)}:${line}: contains ${what}; scrub it (record mode scrubs automatically) and re-record`,
      );
}

/** Where a text file holds a secret: 1-based line and what it is (a binary file, e.g. a seed image, holds none). */
export async function secretsIn(
  file: string,
  patterns: ReturnType<typeof secretPatterns>,
): Promise<Array<{ line: number; text: string; what: string }>> {
  const buf = await readFile(file);
  if (buf.includes(0)) return [];
  const out: Array<{ line: number; text: string; what: string }> = [];
  buf
    .toString('utf8')
    .split('\n')
    .forEach((text, i) => {
      for (const p of patterns) if (p.re.test(text)) out.push({ line: i + 1, text, what: p.what });
    });
  return out;
}

export function secretPatterns(opts: GuardOptions): Array<{ re: Pick<RegExp, 'test'>; what: string }> {
  const home = opts.home ?? homedir();
  const user = opts.user ?? safeUser();
  const out: Array<{ re: Pick<RegExp, 'test'>; what: string }> = [
    { re: /\bsk-[A-Za-z0-9_-]{16,}/, what: 'an API key (sk-...)' },
    { re: /\bBearer\s+[A-Za-z0-9._~+/-]{8,}/, what: 'a bearer token' },
    { re: /"authorization"\s*:/i, what: 'an authorization header' },
    // `/home/user/...` and the like identify nobody (the SDK example agent prints one); the machine's
    // own home is still caught below even when its user name is a common one. No user name starts with a
    // dot: `../home/.qwen/...` (qwen's path from the test's cwd to its HOME) names none.
    {
      re: new RegExp(
        `(?:^|[^A-Za-z0-9_{}])/(?:home|Users)/(?!(?:${[...COMMON_USER_NAMES].join('|')})(?![A-Za-z0-9._-]))[A-Za-z0-9_-][A-Za-z0-9._-]*`,
      ),
      what: 'a real home directory path',
    },
  ];
  // The real home and user name by the one boundary rule every surface replaces them with (roots.ts).
  // Only a home that identifies someone: `/root` is a fixed path that agents also write as a constant.
  const homeRoot = RootReplacer.of({ realHome: isIdentifyingHome(home) ? home : undefined });
  if (!homeRoot.empty)
    out.push({ re: { test: (line) => homeRoot.text(line) !== line }, what: 'the real home directory' });
  if (isIdentifyingUserName(user)) {
    const userRoot = RootReplacer.of({ user });
    out.push({ re: { test: (line) => userRoot.text(line) !== line }, what: 'the user name' });
  }
  const values = opts.secretValues ?? (process.env.DEEPSEEK_API_KEY ? [process.env.DEEPSEEK_API_KEY] : []);
  for (const v of values)
    if (v.length >= 8) out.push({ re: new RegExp(escapeRegExp(v)), what: 'the API key value' });
  return out;
}

function safeUser(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}
