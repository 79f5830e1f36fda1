/**
 * How the views read ACP v2 beside v1: which wire spoke v2, and v2's message upserts merged the way the
 * protocol defines them (omitted field unchanged, `null` clears, a value replaces, chunks append), keyed by
 * `messageId`. The snapshot keeps the wire as sent; only the conversation and transcript views merge.
 */

import { idleStopReason, isPromptAck } from '../driver/protocol-v2.js';

export { idleStopReason, isPromptAck };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Whether an agent's stdout (raw or normalized lines) settled on ACP v2 in an initialize response. */
export function isV2Wire(stdout: readonly string[]): boolean {
  for (const l of stdout) {
    if (!l.includes('"protocolVersion"')) continue;
    try {
      const m: unknown = JSON.parse(l);
      if (isObject(m) && m.method === undefined && isObject(m.result) && m.result.protocolVersion === 2)
        return true;
    } catch {}
  }
  return false;
}

/** v2's message updates: the chunk kinds and the upsert kinds, by the role they speak for. */
export const V2_MESSAGE_ROLE: Readonly<Record<string, 'user' | 'agent' | 'thought'>> = {
  user_message: 'user',
  agent_message: 'agent',
  agent_thought: 'thought',
  user_message_chunk: 'user',
  agent_message_chunk: 'agent',
  agent_thought_chunk: 'thought',
};

/** One message as the upserts so far made it: its role and its content blocks. */
export interface MergedMessage {
  role: 'user' | 'agent' | 'thought';
  content: unknown[];
}

/**
 * The messages of a v2 wire, merged update by update. `apply` returns the message an update touched and
 * whether the update created it, or undefined for an update that is not a message update.
 */
export class MessageUpserts {
  private readonly messages = new Map<string, MergedMessage>();

  /** A message the wire names without creating it: the prompt a v2 `session/prompt` response acknowledged. */
  seed(id: string, role: MergedMessage['role'], content: unknown[]): void {
    if (!this.messages.has(id)) this.messages.set(id, { role, content: [...content] });
  }

  apply(u: Json): { id: string; message: MergedMessage; created: boolean } | undefined {
    const kind = String(u.sessionUpdate);
    const role = V2_MESSAGE_ROLE[kind];
    if (!role || typeof u.messageId !== 'string') return undefined;
    const id = u.messageId;
    let message = this.messages.get(id);
    const created = !message;
    if (!message) {
      message = { role, content: [] };
      this.messages.set(id, message);
    }
    if (kind.endsWith('_chunk')) message.content.push(u.content);
    else if (u.content === null) message.content = [];
    else if (Array.isArray(u.content)) message.content = [...u.content];
    return { id, message, created };
  }
}
