import type { ToolCallContent } from '@agentclientprotocol/sdk';
import type { ToolOutcome } from './types.js';

/** ACP text content for a tool_call_update. */
export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/** A failed outcome whose text the model sees (and can recover from). */
export function failure(text: string): ToolOutcome {
  return { status: 'failed', output: text, content: [textContent(text)] };
}

/** A completed outcome showing the same text to the model and the client. */
export function success(text: string, extra: Partial<ToolOutcome> = {}): ToolOutcome {
  return { status: 'completed', output: text, content: [textContent(text)], ...extra };
}

/** The message of an unknown thrown value. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
