/**
 * What an agent did during one driver step, as lines a reviewer reads in the report (nested steps
 * under the exchange): its message text coalesced, each tool call and how it ended, permission and
 * fs requests and their answers, and the stop reason, in the order they happened.
 */
import { cutText } from '@acp-snapshot/core';
import type * as acp from '@agentclientprotocol/sdk';

/** Longest quoted text in a line. */
const QUOTE = 70;

export class Exchange {
  private lines: string[] = [];
  /** The message or thought being streamed: its kind and text so far. */
  private text: { kind: 'agent' | 'thought'; value: string } | undefined;
  private readonly titles = new Map<string, string>();

  /** Starts a new step. */
  reset(): void {
    this.lines = [];
    this.text = undefined;
  }

  private flush(): void {
    if (!this.text) return;
    const t = this.text.value.replace(/\s+/g, ' ').trim();
    const quoted = t.length > QUOTE ? `${cutText(t, QUOTE)}…` : t;
    if (t) this.lines.push(`${this.text.kind}: ${JSON.stringify(quoted)}`);
    this.text = undefined;
  }

  /** One line of what happened (a request the agent made, the response). */
  note(line: string): void {
    this.flush();
    this.lines.push(line);
  }

  /** A session/update of the driven session. */
  update(u: acp.SessionUpdate): void {
    if (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk') {
      const kind = u.sessionUpdate === 'agent_message_chunk' ? 'agent' : 'thought';
      if (this.text?.kind !== kind) this.flush();
      const piece = u.content.type === 'text' ? u.content.text : `[${u.content.type}]`;
      this.text = { kind, value: (this.text?.value ?? '') + piece };
      return;
    }
    if (u.sessionUpdate === 'tool_call') {
      this.titles.set(u.toolCallId, u.title);
      this.note(`tool call: ${u.title}${u.status && u.status !== 'pending' ? ` (${u.status})` : ''}`);
    } else if (
      u.sessionUpdate === 'tool_call_update' &&
      (u.status === 'completed' || u.status === 'failed')
    ) {
      this.note(`tool ${u.status}: ${u.title ?? this.titles.get(u.toolCallId) ?? u.toolCallId}`);
    }
  }

  /** The lines of the step (the text streamed last included), and a fresh start. */
  take(): string[] {
    this.flush();
    const out = this.lines;
    this.lines = [];
    return out;
  }
}
