/**
 * Refreshing a replay.override.json: an override says what the model does (throws, cuts, hangs) and
 * ties each call to its request by fingerprint hash. After an intended change to the agent, those
 * hashes are stale; refresh rewrites them from the llm/request events the refreshed run persisted,
 * in place (the hand-written file keeps its layout, notes and order), and leaves everything else as written.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { LogRecord } from '@acp-snapshot/session-log';

interface OverrideCallView {
  turn?: number;
  step?: number;
  purpose?: string;
  fingerprint?: string | { hash: string };
}

/** The fingerprint hashes the refreshed run sent, in call order (call i of the override serves model call i). */
function liveRequests(records: readonly LogRecord[]) {
  return records.flatMap((r) => (r.event.type === 'llm/request' ? [r.event] : []));
}

/**
 * Rewrites the stale fingerprint hashes of `file` with those of the refreshed run; returns the file's
 * new text, or undefined when nothing changed. A call whose position no longer matches is left for
 * the refresh's own line-up check to refuse.
 */
export function refreshedOverrideText(text: string, records: readonly LogRecord[]): string | undefined {
  const calls = ((JSON.parse(text) as { calls?: unknown }).calls ?? []) as OverrideCallView[];
  const live = liveRequests(records);
  let out = text;
  calls.forEach((call, i) => {
    const req = live[i];
    if (!req || !call.fingerprint) return;
    if (
      (call.turn !== undefined && call.turn !== req.turn) ||
      (call.step !== undefined && call.step !== req.step)
    )
      return;
    const old = typeof call.fingerprint === 'string' ? call.fingerprint : call.fingerprint.hash;
    if (old === req.fingerprint.hash) return;
    // A stated full fingerprint keeps its shape: its parts are replaced as well.
    if (typeof call.fingerprint === 'object') {
      const oldJson = JSON.stringify(call.fingerprint);
      if (out.includes(oldJson)) out = out.replace(oldJson, JSON.stringify(req.fingerprint));
      else out = out.split(old).join(req.fingerprint.hash);
      return;
    }
    out = out.split(`"${old}"`).join(`"${req.fingerprint.hash}"`);
  });
  return out === text ? undefined : out;
}

/** Refreshes the override file in place; returns whether it changed. */
export async function refreshOverride(file: string, records: readonly LogRecord[]): Promise<boolean> {
  const text = await readFile(file, 'utf8');
  const next = refreshedOverrideText(text, records);
  if (next === undefined) return false;
  await writeFile(file, next);
  return true;
}
