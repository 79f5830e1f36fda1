import type { ChatMessage } from '@acp-snapshot/core';
import type { SessionEvent } from '@acp-snapshot/session-log';

/**
 * The conversation the model sees, derived only from persisted events. Live turns and session/load use
 * this same reducer, so a loaded session continues with exactly the messages the live one had.
 */
export class Conversation {
  readonly messages: ChatMessage[] = [];
  /** The highest turn number seen (0 when none). */
  lastTurn = 0;
  /** Turns started but never ended (a crash or kill mid-turn). */
  openTurn: number | undefined;

  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'turn/start':
        this.lastTurn = Math.max(this.lastTurn, event.turn);
        this.openTurn = event.turn;
        break;
      case 'turn/end':
        if (this.openTurn === event.turn) this.openTurn = undefined;
        break;
      case 'message/committed':
        this.messages.push(event.message);
        break;
      case 'compaction/summary':
        this.messages.splice(0, event.replacedMessages, { role: 'summary', content: event.rawOutput });
        break;
      default:
        break;
    }
  }

  /** Tool calls of the last assistant message that have no tool result yet. */
  danglingToolCalls(): { id: string; name: string }[] {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const m = this.messages[i]!;
      if (m.role === 'assistant') {
        const answered = new Set(
          this.messages.slice(i + 1).flatMap((x) => (x.role === 'tool' ? [x.toolCallId] : [])),
        );
        return (m.toolCalls ?? [])
          .filter((c) => !answered.has(c.id))
          .map((c) => ({ id: c.id, name: c.name }));
      }
      if (m.role === 'user' || m.role === 'summary') return [];
    }
    return [];
  }
}
