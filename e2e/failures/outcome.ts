/**
 * What a user sees of one failure-catalog run through the harness (replay or record path), and the
 * checks every failing case shares: the readable message, in time, the attached raw stdout / stderr /
 * log, nothing lost from the log, and the turn/end the log closes the failed turn with.
 */

import type { FailureCase } from '@acp-snapshot/core/testing';
import { type DriverResult, expect } from '@acp-snapshot/playwright/testing';
import { parseLogText } from '@acp-snapshot/session-log';
import type { TestInfo } from '@playwright/test';
import { unloggedAnnouncements } from './acknowledged.js';

/** Every case must end in its outcome well before its scenario's budget: a failure that waits for the timeout is a hang. */
export const OUTCOME_WITHIN_MS = 8_000;

/** What a user sees of one run through the harness. */
export interface HarnessRun {
  /** The failure message of the test (the DriverError, the replay checks' problems, the recorder's error); '' when it passed. */
  message: string;
  /** Wall time of the run, ms. */
  ms: number;
  result: DriverResult;
  /** The agent's persisted log as harvested (raw rows), '' when it persisted none. */
  rawLog: string;
  /** Why replay failed, as the replay suite notes it for the run's failures by cause (absent without one). */
  cause?: { kind: string; key: string; detail: string };
}

/**
 * The outcome every failing case shares: its message, in time, artifacts attached, nothing lost from
 * the log. `scrub` is what the harness applied to the attachments (record mode scrubs secrets).
 */
export async function expectReportedFailure(
  testInfo: TestInfo,
  run: HarnessRun,
  c: FailureCase,
  scrub: (text: string) => string = (t) => t,
): Promise<void> {
  expect(run.message, 'the readable failure').toMatch(c.expect.message);
  expect(run.ms, 'the failure comes well before the scenario timeout (no hang)').toBeLessThan(
    OUTCOME_WITHIN_MS,
  );
  expect(run.message).not.toMatch(/timed out after/);
  const attached = (name: string) => {
    const a = testInfo.attachments.find((x) => x.name === name);
    expect(a, `attachment ${name}`).toBeDefined();
    return a?.body?.toString('utf8') ?? '';
  };
  expect(attached('stdout.raw.jsonl'), 'the partial transcript, exactly as written').toBe(
    scrub(run.result.stdout.map((l) => l.text).join('\n')),
  );
  const stderr = attached('stderr.txt');
  for (const text of run.result.stderr) expect(stderr).toContain(scrub(text));
  if (run.rawLog !== '') {
    expect(attached('session.raw.jsonl')).toBe(scrub(run.rawLog));
    expect(unloggedAnnouncements(run.result.stdout, run.rawLog), 'nothing lost from the log').toEqual([]);
  }
  expectLoggedTurnEnd(run.rawLog, c);
}

/** The log ends the failed turn the documented way (turn/end kind, and the provider's error code). */
export function expectLoggedTurnEnd(rawLog: string, c: FailureCase): void {
  if (!c.expect.turnEnd) return;
  const events = parseLogText(rawLog, 'harvested log').records.map((r) => r.event);
  const end = events.findLast((e) => e.type === 'turn/end');
  expect(end, 'the failed turn is closed in the log').toMatchObject({ kind: c.expect.turnEnd });
  if (c.expect.turnEnd === 'error' && c.expect.llmErrorCode && end?.type === 'turn/end') {
    expect(`${end.error?.code}: ${end.error?.message}`).toContain(c.expect.llmErrorCode);
  }
}

/** The prompt's JSON-RPC response on stdout (its last one). */
export function promptResponse(run: Pick<HarnessRun, 'result'>): {
  result?: { stopReason?: string };
  error?: { code: number; data?: { code?: string } };
} {
  const responses = run.result.stdout
    .map(
      (l) =>
        JSON.parse(l.text) as { id?: unknown; result?: { stopReason?: string }; error?: { code: number } },
    )
    .filter((m) => m.id !== undefined && (m.result?.stopReason !== undefined || m.error !== undefined));
  return responses.at(-1) ?? {};
}
