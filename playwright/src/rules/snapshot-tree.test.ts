/**
 * The snapshot-tree rules on a copy of a real tree (the claude-agent-acp example's: exchange logs, sidecars,
 * snapshots), intact and then broken one way at a time, as a hand edit or a bad recording would break it.
 */

import { appendFile, cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sidecarHash } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import { REPO_ROOT } from '../scenario/corpus.js';
import { checkSnapshotTrees } from './snapshot-tree.js';

const SOURCE = join(REPO_ROOT, 'examples/claude-agent-acp/tests/__acp__');
const TEST = 'tests/__acp__/claude.spec.ts/claude';

async function copy(): Promise<{ root: string; dir: string; [Symbol.asyncDispose](): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'acp-tree-'));
  await cp(SOURCE, join(root, 'tests/__acp__'), { recursive: true });
  return {
    root,
    dir: join(root, TEST),
    [Symbol.asyncDispose]: () => rm(root, { recursive: true, force: true }),
  };
}

const messages = async (root: string) =>
  (await checkSnapshotTrees(root, { fix: 'npm run record' })).violations.map(
    (v) => `[${v.rule}] ${v.message}`,
  );

test('an intact tree passes: one tree found, no problem', async () => {
  await using t = await copy();
  const r = await checkSnapshotTrees(t.root);
  expect(r.trees).toEqual(['tests/__acp__']);
  expect(r.violations).toEqual([]);
});

test('a hand-edited exchange log: not canonical, named by file and line', async () => {
  await using t = await copy();
  const file = join(t.dir, 'a-plain-answer/exchanges.jsonl');
  const lines = (await readFile(file, 'utf8')).split('\n');
  lines[1] = JSON.stringify(JSON.parse(lines[1]!), null, 1).replace(/\n/g, ' ');
  await writeFile(file, lines.join('\n'));
  expect(await messages(t.root)).toEqual([
    `[exchange-log] ${TEST}/a-plain-answer/exchanges.jsonl: not canonical (line 2 differs from what the recorder writes; edited by hand?): npm run record`,
  ]);
});

test('a log recorded before the canonical order (its exchanges in arrival order) is no hand edit', async () => {
  await using t = await copy();
  const file = join(t.dir, 'a-multi-turn-conversation/exchanges.jsonl');
  const lines = (await readFile(file, 'utf8')).split('\n');
  expect(lines.length, 'a header and at least two exchanges').toBeGreaterThan(3);
  [lines[1], lines[2]] = [lines[2]!, lines[1]!];
  await writeFile(file, lines.join('\n'));
  expect(await messages(t.root)).toEqual([]);
});

test('a sidecar edited by hand, and one no log references', async () => {
  await using t = await copy();
  const sidecars = join(t.dir, 'sidecars');
  const [first] = (await readdir(sidecars)).sort();
  await appendFile(join(sidecars, first!), ' ');
  const orphan = `${sidecarHash('"left over"')}.json`;
  await writeFile(join(sidecars, orphan), '"left over"');
  const got = await messages(t.root);
  expect(got).toContain(
    `[sidecars] ${TEST}/sidecars/${first}: its content does not match its sha256 name (edited by hand?): npm run record`,
  );
  expect(got).toContain(
    `[sidecars] ${TEST}/sidecars/${orphan}: no exchange log references it (left from an earlier recording); delete it: rm ${TEST}/sidecars/${orphan}`,
  );
  // The logs that read the edited sidecar fail to resolve it, naming the line and the JSON path.
  expect(
    got.some((m) =>
      /^\[exchange-log\] .*exchanges\.jsonl:\d+: request\.body.*does not match its sha256 name/.test(m),
    ),
  ).toBe(true);
});

test("a key, a test's own directory and a broken line in a snapshot: each named by file and line", async () => {
  await using t = await copy();
  const file = join(t.dir, 'a-plain-answer/stdout.jsonl');
  await appendFile(
    file,
    '{"note":"key sk-abcdefghijklmnopqrstuv"}\n{"note":"/tmp/acp-w1-AbC123/acp-snap-1/work/notes.txt"}\nnot json\n',
  );
  const n = (await readFile(file, 'utf8')).split('\n').length - 1;
  expect(await messages(t.root)).toEqual([
    `[snapshot-json] ${TEST}/a-plain-answer/stdout.jsonl:${n}: not a JSON line; write it again: npx playwright test --update-snapshots -g TITLE`,
    `[secrets] ${TEST}/a-plain-answer/stdout.jsonl:${n - 2}: contains an API key (sk-...) (rule sk-key); scrub it and re-record: npm run record`,
    `[roots] ${TEST}/a-plain-answer/stdout.jsonl:${n - 1}: holds a test's own directory (/acp-w1-AbC123/...), not a placeholder: the agent spelled a root in a way the harness does not replace; add a normalize pattern (or a model ids rule) to its profile and re-record: npm run record`,
  ]);
});
