/**
 * The rules of a snapshot tree (`tests/__acp__/`, what `toMatchAcpSnapshot()` and the HTTP model write for
 * `defineAcpConfig` projects): every exchange log parses, resolves its sidecars and is canonical; every
 * sidecar is named by its hash and referenced; snapshots parse; no secret and no unreplaced test root.
 */

import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { acceptSnapshotsCommand, sidecarHash } from '@acp-snapshot/core';
import {
  type Exchange,
  ExchangeLogError,
  parseExchanges,
  referencedSidecars,
  serializeExchanges,
} from '@acp-snapshot/model-http';
import { firstDifferingLine } from '../report/diff.js';
import { type GuardOptions, SIDECAR_NAME } from './guard-context.js';
import { secretPatterns, secretsIn } from './secrets.js';

/** One broken rule in a snapshot tree: the message names the file (and line) and what to do. */
export interface SnapshotTreeViolation {
  rule: 'exchange-log' | 'sidecars' | 'snapshot-json' | 'secrets' | 'roots';
  message: string;
}

/** A test root's directory name (`/tmp/acp-w0-AbC123/...`): left in a fixture, it was not replaced. */
const TEST_ROOT = /\/acp-w\d-[A-Za-z0-9]{6}\//;
const TEST_ROOT_WHAT = "a test's own directory";

/**
 * Checks every `__acp__` tree under `root` (node_modules and results left out); `fix` is the command that
 * re-records (named in the messages). Paths in messages are relative to `root`.
 */
export async function checkSnapshotTrees(
  root: string,
  opts: GuardOptions & { fix?: string } = {},
): Promise<{ trees: string[]; violations: SnapshotTreeViolation[] }> {
  const trees = await findTrees(root);
  const out: SnapshotTreeViolation[] = [];
  const show = (p: string) => relative(root, p) || '.';
  const fix = opts.fix ?? 're-record the test (npx playwright test --project=NAME:record -g TITLE)';
  for (const tree of trees) await checkTree(tree, show, fix, opts, out);
  return { trees: trees.map(show), violations: out };
}

async function findTrees(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (!e.isDirectory() || ['node_modules', 'test-results', 'playwright-report', '.git'].includes(e.name))
      continue;
    const path = join(dir, e.name);
    if (e.name === '__acp__') out.push(path);
    else await findTrees(path, out);
  }
  return out.sort();
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

async function checkTree(
  tree: string,
  show: (p: string) => string,
  fix: string,
  opts: GuardOptions,
  out: SnapshotTreeViolation[],
): Promise<void> {
  const files = await filesUnder(tree);
  // Sidecar directory -> the hashes its exchange logs reference.
  const referenced = new Map<string, Set<string>>();
  for (const file of files.filter((f) => basename(f) === 'exchanges.jsonl')) {
    const sidecars = join(dirname(file), '..', 'sidecars');
    const text = await readFile(file, 'utf8');
    // What it references counts even when it does not parse: its sidecars are not left over.
    const refs = referenced.get(sidecars) ?? new Set<string>();
    referenced.set(sidecars, refs);
    try {
      for (const h of referencedSidecars(text, sidecars)) refs.add(h);
    } catch {
      // Not JSON: parseExchanges below names the line.
    }
    let exchanges: Exchange[];
    try {
      exchanges = parseExchanges(text, show(file), { sidecars, fix });
    } catch (e) {
      if (!(e instanceof ExchangeLogError)) throw e;
      out.push({ rule: 'exchange-log', message: e.message });
      continue;
    }
    const canonical = serializeExchanges(exchanges).text;
    // A log recorded before the canonical order (requests in arrival order) has the same lines in another
    // order: no hand edit, and replay does not depend on it.
    const sorted = (t: string) => t.split('\n').sort().join('\n');
    if (canonical !== text && sorted(canonical) !== sorted(text))
      out.push({
        rule: 'exchange-log',
        message: `${show(file)}: not canonical (line ${firstDifferingLine(text, canonical)} differs from what the recorder writes; edited by hand?): ${fix}`,
      });
  }
  for (const file of files.filter((f) => basename(dirname(f)) === 'sidecars')) {
    const name = basename(file);
    const refs = referenced.get(dirname(file));
    if (!SIDECAR_NAME.test(name)) {
      out.push({
        rule: 'sidecars',
        message: `${show(file)}: not a sidecar name (<sha256>.json); delete it`,
      });
      continue;
    }
    if (sidecarHash(await readFile(file, 'utf8')) !== name.slice(0, -'.json'.length))
      out.push({
        rule: 'sidecars',
        message: `${show(file)}: its content does not match its sha256 name (edited by hand?): ${fix}`,
      });
    else if (!refs?.has(name.slice(0, -'.json'.length)))
      out.push({
        rule: 'sidecars',
        message: `${show(file)}: no exchange log references it (left from an earlier recording); delete it: rm ${show(file)}`,
      });
  }
  for (const file of files.filter((f) => basename(f) === 'stdout.jsonl')) {
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (line === '' && i === lines.length - 1) return;
      try {
        JSON.parse(line);
      } catch {
        out.push({
          rule: 'snapshot-json',
          message: `${show(file)}:${i + 1}: not a JSON line; write it again: ${acceptSnapshotsCommand('TITLE')}`,
        });
      }
    });
  }
  // The secrets rule's patterns, and a test's own directory, in one pass over each file.
  const rules = secretPatterns(opts);
  rules.lines.push({ re: TEST_ROOT, what: TEST_ROOT_WHAT });
  for (const file of files)
    for (const { line, text, what, rule } of await secretsIn(file, rules))
      out.push(
        what === TEST_ROOT_WHAT
          ? {
              rule: 'roots',
              message: `${show(file)}:${line}: holds a test's own directory (${TEST_ROOT.exec(text)![0]}...), not a placeholder: the agent spelled a root in a way the harness does not replace; add a normalize pattern (or a model ids rule) to its profile and re-record: ${fix}`,
            }
          : {
              rule: 'secrets',
              message: `${show(file)}:${line}: contains ${what}${rule ? ` (rule ${rule})` : ''}; scrub it and re-record: ${fix}`,
            },
      );
}
