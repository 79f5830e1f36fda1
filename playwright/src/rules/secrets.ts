/**
 * Secrets: a fixture file is clean when scrubbing it would change nothing (`scrub(t) === t`, model-http's
 * secrets.ts, what record mode scrubs by), so the rule reports exactly what recording would have removed: a
 * credential, a key value, a real home directory or user name.
 */

import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { recordCommand } from '@acp-snapshot/core';
import { findSecrets, machineSecrets, type Secrets, scrub } from '@acp-snapshot/model-http';
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

/** What the secrets rule looks for: this machine's secrets, and what a caller adds per line. */
export interface SecretRules {
  secrets: Secrets;
  /** Per line, besides the secrets: what a caller adds (a test's own directory), reported without a rule. */
  lines: Array<{ re: Pick<RegExp, 'test'>; what: string }>;
}

/**
 * Where a text file holds a secret: 1-based line, what it is and the rule that found it (a binary file, e.g.
 * a seed image, holds none).
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
  // Over the whole text (a private key block spans lines), each reported at the line it starts on.
  if (scrub(content, rules.secrets) !== content) {
    const starts: number[] = [];
    let at = 0;
    for (const l of lines) {
      starts.push(at);
      at += l.length + 1;
    }
    for (const f of findSecrets(content, rules.secrets)) {
      let i = starts.length - 1;
      while (starts[i]! > f.start) i--;
      out.push({ line: i + 1, text: lines[i]!, what: f.what, rule: f.rule });
    }
  }
  if (rules.lines.length > 0)
    lines.forEach((text, i) => {
      for (const p of rules.lines) if (p.re.test(text)) out.push({ line: i + 1, text, what: p.what });
    });
  return out.sort((a, b) => a.line - b.line);
}

/** This machine's secrets, as record mode scrubs them, with the options' home, user and key values instead when given. */
export function secretPatterns(opts: GuardOptions): SecretRules {
  const machine = machineSecrets(opts.secretValues);
  const secrets: Secrets = {
    ...machine,
    ...(opts.home !== undefined ? { home: opts.home } : {}),
    ...(opts.user !== undefined ? { user: opts.user } : {}),
  };
  return { secrets, lines: [] };
}
