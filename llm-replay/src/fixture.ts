import { access } from 'node:fs/promises';
import { recordCommand } from '@acp-snapshot/core';
import { readLogFile, type SessionEvent, type SessionHeader } from '@acp-snapshot/session-log';

/** A replay fixture that is missing or unreadable. */
export class ReplayFixtureError extends Error {
  override readonly name = 'ReplayFixtureError';
}

/** A recorded session log, flattened to events (header first) with each event's time, if recorded. */
export interface LoadedFixture {
  header: SessionHeader;
  events: SessionEvent[];
  /** Parallel to `events`; undefined entries where the log has no time (projected fixtures). */
  timestamps: (number | undefined)[];
  warnings: string[];
}

/** Reads a session log (projected fixture or raw log, plain or gzip) for replay. */
export async function loadFixture(file: string): Promise<LoadedFixture> {
  try {
    await access(file);
  } catch {
    throw new ReplayFixtureError(
      `the replay fixture ${file} does not exist: record the scenario first ` +
        `(\`${recordCommand('NAME')}\`), or fix ACP_SNAPSHOT_FIXTURE`,
    );
  }
  let log: Awaited<ReturnType<typeof readLogFile>>;
  try {
    log = await readLogFile(file);
  } catch (e) {
    // The session-log reader names the file and line; keep its message whole.
    throw new ReplayFixtureError(`cannot read the replay fixture: ${(e as Error).message}`);
  }
  const events: SessionEvent[] = [];
  const timestamps: (number | undefined)[] = [];
  if (log.records[0]?.event.type !== 'session/header') {
    events.push(log.header);
    timestamps.push(undefined);
  }
  for (const r of log.records) {
    events.push(r.event);
    timestamps.push(r.ts);
  }
  return { header: log.header, events, timestamps, warnings: log.warnings };
}
