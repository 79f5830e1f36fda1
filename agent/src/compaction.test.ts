import type { ChatMessage } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import { compactionSplit, estimateTokens } from './compaction.js';
import { Conversation } from './conversation.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistantCalling = (id: string): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, name: 'read_file', arguments: '{"path":"a"}' }],
});
const tool = (id: string): ChatMessage => ({ role: 'tool', toolCallId: id, content: 'x' });

test('the estimate is characters / 4, rounded up, over system, tools and messages', () => {
  expect(estimateTokens('abcd', [], [user('abcd')])).toBe(Math.ceil((4 + 2 + 4) / 4));
});

test('the kept part never starts with a tool result, and a lone summary is not summarized again', () => {
  const msgs = [user('u1'), assistantCalling('c1'), tool('c1'), user('u2')];
  expect(compactionSplit(msgs, 1)).toBe(3);
  // Keeping 2 would start at the tool result: move back to its assistant message.
  expect(compactionSplit(msgs, 2)).toBe(1);
  expect(compactionSplit(msgs, 4)).toBe(0);
  expect(compactionSplit([{ role: 'summary', content: 's' }, user('u')], 1)).toBe(0);
});

test('the conversation reducer applies commits and compaction summaries and finds dangling tool calls', () => {
  const c = new Conversation();
  c.apply({ type: 'turn/start', turn: 1 });
  c.apply({ type: 'message/committed', turn: 1, message: user('u1') });
  c.apply({ type: 'message/committed', turn: 1, message: assistantCalling('c1') });
  expect(c.danglingToolCalls()).toEqual([{ id: 'c1', name: 'read_file' }]);
  c.apply({ type: 'message/committed', turn: 1, message: tool('c1') });
  expect(c.danglingToolCalls()).toEqual([]);
  expect(c.openTurn).toBe(1);
  c.apply({ type: 'turn/end', turn: 1, kind: 'completed' });
  expect(c.openTurn).toBeUndefined();
  c.apply({ type: 'compaction/summary', turn: 2, rawOutput: 'S', replacedMessages: 2, llmStreamCall: true });
  expect(c.messages).toEqual([{ role: 'summary', content: 'S' }, tool('c1')]);
  expect(c.lastTurn).toBe(1);
});
