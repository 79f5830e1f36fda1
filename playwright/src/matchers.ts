/**
 * `expect(acp).toMatchAcpSnapshot(name?)`: the test's normalized ACP wire (every process's stdout), the
 * workspace it left (against the seed) and, when the agent persisted one, its projected session log,
 * each compared with a snapshot file the way `toMatchSnapshot` compares: `--update-snapshots` writes
 * these files and nothing else.
 */

import { relative } from 'node:path';
import { expect as base, test } from '@playwright/test';
import { harvestLog, projectHarvested } from './compare/harvest.js';
import { type SnapshotPaths, settleSnapshots } from './compare/snapshot-files.js';
import { fileSnapshotStore } from './compare/snapshot-store.js';
import { mcpSnapshotText, stdoutSnapshotText } from './compare/surfaces.js';
import { captureWorkspace } from './compare/workspace.js';
import { noteTestCause } from './coverage/coverage-records.js';
import type { AcpClient } from './driver/acp-client.js';
import { causeProject, testDirName } from './fixtures.js';
import { normalizeJsonlText } from './normalize/normalize.js';
import { attachConversation } from './report/conversation.js';
import { unifiedDiff } from './report/diff.js';

/** The snapshot texts of a finished (or paused) run. */
export async function acpSnapshotTexts(
  acp: AcpClient,
): Promise<{ stdout: string; workspace: string; log?: string; mcp?: string }> {
  const s = acp.snapshot;
  if (!s)
    throw new Error(
      "toMatchAcpSnapshot: pass the `acp` fixture (it knows the test's roots and the agent profile)",
    );
  // close() settled before it closed stdin; an agent still running may yet send its late notifications.
  if (acp.running) await acp.awaitLateNotifications();
  const stdout = stdoutSnapshotText(acp.stdout, s.roots, s.profile.normalize);
  const workspace = await captureWorkspace({
    roots: s.roots,
    seedDir: s.workspaceSeed ?? `${s.roots.root}/.no-seed`,
    stdout: acp.stdout,
  });
  const harvested = await harvestLog(s.roots.persistRoot).catch(() => undefined);
  const log = harvested ? normalizeJsonlText(projectHarvested(harvested, s.roots).text) : undefined;
  // What the test's MCP servers saw: a surface of its own once the test attached one.
  const servers = acp.mcpIfAny;
  const mcp = servers?.any
    ? mcpSnapshotText(await servers.snapshotText(s.roots), s.profile.normalize)
    : undefined;
  return { stdout, workspace, ...(log ? { log } : {}), ...(mcp !== undefined ? { mcp } : {}) };
}

/** A test title as a directory name: `a prompt ends the turn` → `a-prompt-ends-the-turn`. */
export const fileName = testDirName;

/** The snapshot files of a test: one directory per test, like a scenario's. */
const SNAPSHOT_FILES = {
  stdout: 'stdout.jsonl',
  workspace: 'workspace.json',
  log: 'session.jsonl',
  mcp: 'mcp.jsonl',
} as const;

export const expect = base.extend({
  async toMatchAcpSnapshot(received: AcpClient, name?: string) {
    const info = test.info();
    const dir = name ?? fileName(info.title);
    const texts = await acpSnapshotTexts(received);
    const at = (file: string) => {
      const path = info.snapshotPath(dir, file);
      return { path, shown: relative(info.config.rootDir, path) };
    };
    const paths: SnapshotPaths = {
      stdout: at(SNAPSHOT_FILES.stdout),
      workspace: at(SNAPSHOT_FILES.workspace),
      log: at(SNAPSHOT_FILES.log),
      mcp: at(SNAPSHOT_FILES.mcp),
    };
    // A failed model replay comes first: the surfaces then show the failure, and accepting them would commit it.
    const replayFailure = received.snapshot?.modelReplayFailure?.();
    const verdict = await settleSnapshots(
      fileSnapshotStore,
      paths,
      {
        texts,
        recording: received.snapshot?.recording === true,
        replayed: received.snapshot?.replayed === true,
        ...(replayFailure !== undefined ? { replayFailure } : {}),
        problems: received.problems,
      },
      { updateSnapshots: info.config.updateSnapshots, title: info.title, dir },
    );
    for (const d of verdict.differs)
      await info.attach(`${dir}/${SNAPSHOT_FILES[d.surface]}.diff`, {
        body: unifiedDiff(d.expected!, d.actual, { expected: paths[d.surface].shown, actual: 'this run' }),
        contentType: 'text/x-diff',
      });
    // What changed, keyed without the test's context: the same field changed the same way in many tests is one
    // cause in the run's "failures by cause". After a failed replay the surfaces only follow from it.
    if (replayFailure === undefined && !verdict.pass)
      for (const d of verdict.differs)
        if (d.cause) noteTestCause(info, { ...d.cause, project: causeProject(info) });
    const stdout = verdict.differs.find((d) => d.surface === 'stdout');
    if (stdout)
      await attachConversation(info, {
        actual: stdout.actual,
        sent: received.sent.map((l) => l.text),
        expected: stdout.expected,
      });
    return { pass: verdict.pass, name: 'toMatchAcpSnapshot', message: () => verdict.message };
  },
});
