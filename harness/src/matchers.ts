/**
 * `expect(acp).toMatchAcpSnapshot(name?)`: the test's normalized ACP wire (every process's stdout), the
 * workspace it left (against the seed) and, when the agent persisted one, its projected session log,
 * each compared with a snapshot file the way `toMatchSnapshot` compares: `--update-snapshots` writes
 * these files and nothing else.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { acceptSnapshotsCommand } from '@acp-snapshot/core';
import { expect as base, type TestInfo, test } from '@playwright/test';
import { jsonLinesCause } from './compare/causes.js';
import { attachConversation } from './compare/conversation.js';
import { firstDifferingLine, unifiedDiff } from './compare/diff.js';
import { adoptRecordedProvider, harvestLog, projectHarvested } from './compare/harvest.js';
import { captureWorkspace } from './compare/workspace.js';
import { type AcpClient, settleStdout } from './driver/acp-client.js';
import { testDirName } from './fixtures.js';
import { normalizeJsonlText, normalizeStdout } from './normalize/normalize.js';
import { applyRules } from './profile.js';
import { rootMap } from './roots/roots.js';

/** The snapshot texts of a finished (or paused) run. */
export async function acpSnapshotTexts(
  acp: AcpClient,
): Promise<{ stdout: string; workspace: string; log?: string }> {
  const s = acp.snapshot;
  if (!s)
    throw new Error(
      "toMatchAcpSnapshot: pass the `acp` fixture (it knows the test's roots and the agent profile)",
    );
  // close() settled before it closed stdin; an agent still running may yet send its late notifications.
  if (acp.running) {
    await acp.awaitAnytimeUpdates();
    await settleStdout(acp, s.profile.settleMs ?? 0);
  }
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

/** A test title as a directory name: `a prompt ends the turn` → `a-prompt-ends-the-turn`. */
export const fileName = testDirName;

/** One snapshot file compared (and written, as `--update-snapshots` says): a failure message, or undefined. */
async function compareFile(
  info: TestInfo,
  text: string,
  segments: string[],
  kind: 'stdout' | 'log' | undefined,
  recording: boolean,
  /** The model replay failed: nothing is written, and no command that writes is suggested. */
  replayFailed: boolean,
  /** The text as compared, given the snapshot (a replayed log names the recording's provider). */
  compared: (text: string, expected: string | undefined) => string = (t) => t,
): Promise<string | undefined> {
  const path = info.snapshotPath(...segments);
  const shown = relative(info.config.rootDir, path);
  const expected = await readFile(path, 'utf8').catch(() => undefined);
  text = compared(text, expected);
  const mode = info.config.updateSnapshots;
  if (expected === text) return undefined;
  // As toMatchSnapshot: a missing snapshot is written unless the mode is 'none' (the default mode is 'default').
  // A run that records the model's calls rewrites them: they are what the next replay is compared with.
  const write =
    !replayFailed &&
    (recording || mode === 'all' || mode === 'changed' || (expected === undefined && mode !== 'none'));
  if (write) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }
  if (recording) return undefined;
  if (expected === undefined)
    return `${shown}: no snapshot yet${write ? '; written: review it, commit it, and run again' : replayFailed ? ' (not written: the model replay failed)' : ' (run with --update-snapshots to write it)'}.`;
  if (write) return undefined;
  await info.attach(`${segments.join('/')}.diff`, {
    body: unifiedDiff(expected, text, { expected: shown, actual: 'this run' }),
    contentType: 'text/x-diff',
  });
  const cause = kind ? jsonLinesCause(kind, expected, text) : undefined;
  const field = cause?.field
    ? ` at line ${cause.field.line}, ${cause.field.path}:\n  ${cause.field.change}`
    : ` (first difference at line ${firstDifferingLine(expected, text)})`;
  return `${shown} differs${field}`;
}

export const expect = base.extend({
  async toMatchAcpSnapshot(received: AcpClient, name?: string) {
    const info = test.info();
    // One directory per test, like a scenario's: NAME/stdout.jsonl, NAME/workspace.json, NAME/session.jsonl.
    const dir = name ?? fileName(info.title);
    const texts = await acpSnapshotTexts(received);
    const recording = received.snapshot?.recording === true;
    // A failed model replay comes first: the surfaces then show the failure, and accepting them would commit it.
    const replayFailure = received.snapshot?.modelReplayFailure?.();
    const failed = replayFailure !== undefined;
    const failures = (
      await Promise.all([
        compareFile(info, texts.stdout, [dir, 'stdout.jsonl'], 'stdout', recording, failed),
        compareFile(info, texts.workspace, [dir, 'workspace.json'], undefined, recording, failed),
        texts.log === undefined
          ? undefined
          : compareFile(info, texts.log, [dir, 'session.jsonl'], 'log', recording, failed, (log, recorded) =>
              // Replay serves the recording through the replay plugin, which the header then names; the
              // comparison adopts the recorded provider, as the scenario corpus does (harvest.ts).
              received.snapshot?.replayed ? adoptRecordedProvider(log, recorded) : log,
            ),
      ])
    ).filter((f): f is string => f !== undefined);
    if (failures.some((f) => f.includes('stdout.jsonl differs')))
      await attachConversation(info, {
        actual: texts.stdout,
        sent: received.sent.map((l) => l.text),
        expected: await readFile(info.snapshotPath(dir, 'stdout.jsonl'), 'utf8').catch(() => undefined),
      });
    const problems = received.problems;
    const pass = failures.length === 0 && problems.length === 0 && !replayFailure;
    const differs = failures.some((f) => f.includes(' differs'));
    return {
      pass,
      name: 'toMatchAcpSnapshot',
      message: () =>
        pass
          ? `the ACP run matches its snapshots (${dir}/)`
          : [
              ...(replayFailure
                ? [
                    replayFailure,
                    failures.length > 0
                      ? 'The snapshots below differ after a failed model replay: fix the replay (or record again) first; do not accept them.'
                      : '',
                  ]
                : []),
              ...problems.map((p) => `problem: ${p}`),
              ...failures,
              differs && !replayFailure
                ? `If the change is intended, accept it: ${acceptSnapshotsCommand(`'${info.title}'`)} (the diffs are attached).`
                : '',
            ]
              .filter(Boolean)
              .join('\n'),
    };
  },
});
