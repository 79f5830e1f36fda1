/**
 * The ACP v2 rules a client relies on to read a turn, checked over the agent's stdout as written: message
 * chunks carry their `messageId`; an upsert that creates nothing (no content) names a message an earlier
 * update created; a session goes idle once per prompt. Each broken rule is one problem naming the stdout
 * line, so the test fails on the line that broke it rather than on a conversation that reads wrong.
 */

import { isPromptAck } from './protocol-v2.js';

const CHUNKS = new Set(['agent_message_chunk', 'user_message_chunk', 'agent_thought_chunk']);
const UPSERTS = new Set(['agent_message', 'user_message', 'agent_thought']);

/** The problems of a v2 wire, one per broken rule and line, in line order. */
export function v2WireProblems(stdout: ReadonlyArray<{ text: string; process: number }>): string[] {
  const problems: string[] = [];
  const known = new Set<string>();
  /** Per session: idle since its last acknowledged prompt. */
  const idle = new Map<string, boolean>();
  let acks = 0;
  let process = stdout[0]?.process ?? 0;
  stdout.forEach((line, i) => {
    if (line.process !== process) {
      // A new agent process starts its sessions' states afresh: resuming one, it states it (claude-agent-acp
      // 0.101 ends a replay from the start on an idle update), which is no second idle of the last process's.
      process = line.process;
      acks = 0;
      idle.clear();
    }
    const at = `stdout line ${i + 1} (agent process ${line.process + 1})`;
    let m: { method?: unknown; result?: unknown; params?: { sessionId?: unknown; update?: unknown } };
    try {
      m = JSON.parse(line.text) as typeof m;
    } catch {
      return;
    }
    if (m.method === undefined && isPromptAck(m.result)) {
      acks++;
      return;
    }
    if (m.method !== 'session/update' || !m.params || typeof m.params.update !== 'object') return;
    const u = m.params.update as Record<string, unknown>;
    const kind = String(u.sessionUpdate);
    const session = String(m.params.sessionId);
    if (CHUNKS.has(kind)) {
      if (typeof u.messageId !== 'string' || u.messageId === '') {
        problems.push(
          `${at}: ACP v2: a ${kind} must carry its messageId (chunks append to the message it names); the agent sent none`,
        );
        return;
      }
      known.add(`${session}/${u.messageId}`);
    } else if (UPSERTS.has(kind)) {
      const id = `${session}/${String(u.messageId)}`;
      if (typeof u.messageId !== 'string' || u.messageId === '')
        problems.push(`${at}: ACP v2: a ${kind} upsert must carry its messageId; the agent sent none`);
      else if (!known.has(id) && (u.content === undefined || u.content === null))
        problems.push(
          `${at}: ACP v2: a ${kind} upsert for message ${JSON.stringify(u.messageId)}, which no earlier update created, holds no content (an upsert patches a message; the first one must create it)`,
        );
      else known.add(id);
    } else if (kind === 'state_update' && u.state === 'idle') {
      if (acks > 0) acks--;
      else if (idle.get(session))
        problems.push(
          `${at}: ACP v2: a second idle state update for session ${session} with no prompt since the last one (a session goes idle once per prompt turn)`,
        );
      idle.set(session, true);
    }
  });
  return problems;
}
