/**
 * Secrets: no credential of the one table (model-http credentials.ts, what record mode scrubs by), key value, real
 * home directory or user name in any fixture file.
 */

import { readFile } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import { relative, sep } from 'node:path';
import { RootReplacer, recordCommand } from '@acp-snapshot/core';
import { type CredentialOptions, findCredentials } from '@acp-snapshot/model-http';
import { COMMON_USER_NAMES, isIdentifyingHome, isIdentifyingUserName } from '../roots/secrets.js';
import { type GuardContext, type GuardOptions, walkFiles } from './guard-context.js';

export async function checkSecrets(ctx: GuardContext): Promise<void> {
  const { opts, fixturesDir, scenariosDir, show, add } = ctx;
  const rules = secretPatterns(opts);
  for (const file of await walkFiles(fixturesDir)) {
    const [scenario, ...rest] = relative(scenariosDir, file).split(sep);
    const fix =
      scenario && rest.length > 0 && scenario !== '..'
        ? `re-record it (record mode scrubs it): ${recordCommand(scenario)}`
        : 'scrub it (record mode scrubs automatically) and re-record';
    for (const { line, what, rule } of await secretsIn(file, rules))
      add('secrets', `${show(file)}:${line}: contains ${what}${rule ? ` (rule ${rule})` : ''}; ${fix}`);
  }
}

/** What the secrets rule looks for: the credentials table with this run's key values, and rules per line. */
export interface SecretRules {
  /** The key values matched verbatim besides the table's formats (model-http credentials.ts). */
  credentials: CredentialOptions;
  /** Per line: the real home and user name (and what a caller adds, e.g. a test's own directory). */
  lines: Array<{ re: Pick<RegExp, 'test'>; what: string }>;
}

/**
 * Where a text file holds a secret: 1-based line, what it is and the credentials rule that found it (a binary
 * file, e.g. a seed image, holds none).
 */
export async function secretsIn(
  file: string,
  rules: SecretRules,
): Promise<Array<{ line: number; text: string; what: string; rule?: string }>> {
  const buf = await readFile(file);
  if (buf.includes(0)) return [];
  const content = buf.toString('utf8');
  const lines = content.split('\n');
  const out: Array<{ line: number; text: string; what: string; rule?: string }> = [];
  // Credentials over the whole text (a private key block spans lines), each reported at the line it starts on.
  const starts: number[] = [];
  let at = 0;
  for (const l of lines) {
    starts.push(at);
    at += l.length + 1;
  }
  for (const f of findCredentials(content, rules.credentials)) {
    let i = starts.length - 1;
    while (starts[i]! > f.start) i--;
    out.push({ line: i + 1, text: lines[i]!, what: f.what, rule: f.rule });
  }
  lines.forEach((text, i) => {
    for (const p of rules.lines) if (p.re.test(text)) out.push({ line: i + 1, text, what: p.what });
  });
  return out.sort((a, b) => a.line - b.line);
}

export function secretPatterns(opts: GuardOptions): SecretRules {
  const home = opts.home ?? homedir();
  const user = opts.user ?? safeUser();
  const out: Array<{ re: Pick<RegExp, 'test'>; what: string }> = [
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
  return { credentials: { values }, lines: out };
}

function safeUser(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}
