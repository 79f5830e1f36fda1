/**
 * `expect(acp).toMatchAcpSnapshot(name?)`: the test's normalized ACP wire (every process's stdout), the
 * workspace it left (against the seed) and, when the agent persisted one, its projected session log,
 * each compared with a snapshot file the way `toMatchSnapshot` compares: `--update-snapshots` writes
 * these files and nothing else.
 */
import { expect as base, test } from '@playwright/test';
import { harvestLog, projectHarvested } from '../../e2e/harvest.js';
import { normalizeJsonlText, normalizeStdout } from '../../e2e/normalize.js';
import { rootMap } from '../../e2e/roots.js';
import { captureWorkspace } from '../../e2e/workspace.js';
import type { AcpClient } from './acp-client.js';
import { applyRules } from './profile.js';

/** The snapshot texts of a finished (or paused) run. */
export async function acpSnapshotTexts(
  acp: AcpClient,
): Promise<{ stdout: string; workspace: string; log?: string }> {
  const s = acp.snapshot;
  if (!s)
    throw new Error(
      "toMatchAcpSnapshot: pass the `acp` fixture (it knows the test's roots and the agent profile)",
    );
  await settle(acp, s.profile.settleMs ?? 0);
  const normalized = normalizeStdout(acp.stdout, { roots: rootMap(s.roots), aliases: s.roots.aliases });
  const lines = applyRules(normalized, s.profile.normalize);
  const stdout = lines.length ? `${lines.join('\n')}\n` : '';
  const workspace = await captureWorkspace({
    roots: s.roots,
    seedDir: s.workspaceSeed ?? `${s.roots.root}/.no-seed`,
    stdout: acp.stdout,
  });
  const harvested = await harvestLog(s.roots.persistRoot).catch(() => undefined);
  const log = harvested ? normalizeJsonlText(projectHarvested(harvested, s.roots).text) : undefined;
  return { stdout, workspace, ...(log ? { log } : {}) };
}

/** Waits until the agent has written nothing to stdout for `ms` (late notifications after a response). */
async function settle(acp: AcpClient, ms: number): Promise<void> {
  if (ms <= 0) return;
  for (let seen = -1; seen !== acp.stdout.length; ) {
    seen = acp.stdout.length;
    await new Promise((r) => setTimeout(r, ms));
  }
}

export const expect = base.extend({
  async toMatchAcpSnapshot(received: AcpClient, name?: string) {
    // One set of files per test (and per project: the default snapshot path names the project).
    const base_ = name ?? test.info().title;
    const texts = await acpSnapshotTexts(received);
    const failures: string[] = [];
    const compare = (text: string, file: string) => {
      try {
        base(text).toMatchSnapshot(file);
      } catch (e) {
        failures.push((e as Error).message);
      }
    };
    compare(texts.stdout, `${base_}.stdout.jsonl`);
    compare(texts.workspace, `${base_}.workspace.json`);
    if (texts.log !== undefined) compare(texts.log, `${base_}.session.jsonl`);
    const problems = received.problems;
    const pass = failures.length === 0 && problems.length === 0;
    const update = test.info().config.updateSnapshots;
    return {
      pass,
      name: 'toMatchAcpSnapshot',
      message: () =>
        pass
          ? `the ACP run matches its snapshots (${base_}.*)`
          : [
              ...problems.map((p) => `problem: ${p}`),
              ...failures,
              update === 'none' || update === 'missing'
                ? 'If the change is intended, accept it with `npx playwright test --update-snapshots` (add -g to name the test).'
                : '',
            ]
              .filter(Boolean)
              .join('\n\n'),
    };
  },
});
