/**
 * "Nothing lost from the log": everything the agent told the client before a failure must already be
 * in its persisted session log, because the agent records an event before it announces it. Checked
 * against the raw stdout lines and the raw log the harness harvested (a torn tail is tolerated).
 */

import type { StdoutLine } from '@acp-snapshot/playwright/testing';
import { parseLogText } from '@acp-snapshot/session-log';

interface Announced {
  /** agent_message_chunk texts, concatenated in the order the client got them. */
  text: string;
  /** tool_call ids the client was told about, with the stdout line that announced each. */
  toolCalls: Map<string, number>;
  /** Prompt turns the client got an answer for (a stop reason or an error naming the turn). */
  endedTurns: number;
}

function announced(stdout: readonly StdoutLine[]): Announced {
  const out: Announced = { text: '', toolCalls: new Map(), endedTurns: 0 };
  stdout.forEach((line, i) => {
    let msg: {
      method?: string;
      params?: { update?: { sessionUpdate?: string; content?: { text?: string }; toolCallId?: string } };
      result?: { stopReason?: string };
      error?: { data?: { turn?: number } };
    };
    try {
      msg = JSON.parse(line.text);
    } catch {
      return;
    }
    const update = msg.method === 'session/update' ? msg.params?.update : undefined;
    if (update?.sessionUpdate === 'agent_message_chunk') out.text += update.content?.text ?? '';
    if (update?.sessionUpdate === 'tool_call' && update.toolCallId)
      out.toolCalls.set(update.toolCallId, i + 1);
    if (typeof msg.result?.stopReason === 'string' || typeof msg.error?.data?.turn === 'number')
      out.endedTurns++;
  });
  return out;
}

/**
 * What the client was told but the raw log does not hold, one readable line each ([] when nothing
 * was lost). `rawLog` is the log text as the agent left it on disk.
 */
export function unloggedAnnouncements(stdout: readonly StdoutLine[], rawLog: string): string[] {
  const seen = announced(stdout);
  const { records } = parseLogText(rawLog, 'the harvested log');
  const events = records.map((r) => r.event as { type: string; chunk?: { type: string; text?: string } });
  const logged = events
    .filter((e) => e.type === 'assistant/chunk' && e.chunk?.type === 'text')
    .map((e) => e.chunk?.text ?? '')
    .join('');
  const problems: string[] = [];
  if (!logged.startsWith(seen.text)) {
    problems.push(
      `the client got the message text ${JSON.stringify(seen.text)} but the log's assistant/chunk events hold only ${JSON.stringify(logged)}`,
    );
  }
  const loggedCalls = new Set(
    records.map((r) => r.event).flatMap((e) => (e.type === 'tool/call' ? [e.toolCallId] : [])),
  );
  for (const [id, line] of seen.toolCalls) {
    if (!loggedCalls.has(id))
      problems.push(
        `stdout line ${line} announced tool call ${id}, but the log has no tool/call event for it`,
      );
  }
  const turnEnds = events.filter((e) => e.type === 'turn/end').length;
  if (turnEnds < seen.endedTurns) {
    problems.push(
      `the client got the end of ${seen.endedTurns} prompt turn(s), but the log holds ${turnEnds} turn/end event(s)`,
    );
  }
  return problems;
}
