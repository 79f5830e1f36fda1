import {
  buildChunk,
  finishChunk,
  llmRequest,
  makeRecords,
  messageCommitted,
  type SessionEvent,
  textChunk,
  turnStart,
  userMessage,
} from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { uncommittedAnswer } from './interrupted-turn.js';

const reasoning = (text: string) => ({ type: 'reasoning' as const, text });
const of = (events: SessionEvent[]) => makeRecords(events);

test('the answer a killed process was streaming: text and reasoning of the last model call', () => {
  const records = of([
    turnStart(1),
    userMessage(1, 'hi'),
    llmRequest(1, 1),
    buildChunk(1, 1, { type: 'tool_call_start', index: 0, id: 'c1', name: 'bash' }),
    buildChunk(1, 1, { type: 'tool_call_args', index: 0, delta: '{}' }),
    buildChunk(1, 1, finishChunk('tool_calls')),
    messageCommitted(1, {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c1', name: 'bash', arguments: '{}' }],
    }),
    messageCommitted(1, { role: 'tool', toolCallId: 'c1', content: 'ok' }),
    llmRequest(1, 2),
    buildChunk(1, 2, reasoning('Think.')),
    buildChunk(1, 2, textChunk('Half ')),
    buildChunk(1, 2, textChunk('an answer')),
  ]);
  expect(uncommittedAnswer(records, 1)).toEqual({
    role: 'assistant',
    content: 'Half an answer',
    reasoning: 'Think.',
  });
  // Another turn's chunks are not this turn's answer.
  expect(uncommittedAnswer(records, 2)).toBeUndefined();
});

test('nothing to commit: the call was committed, showed no text yet, or was a compaction call', () => {
  const committed = of([
    turnStart(1),
    llmRequest(1, 1),
    buildChunk(1, 1, textChunk('Done.')),
    buildChunk(1, 1, finishChunk('stop')),
    messageCommitted(1, { role: 'assistant', content: 'Done.' }),
  ]);
  expect(uncommittedAnswer(committed, 1)).toBeUndefined();
  const onlyReasoning = of([turnStart(1), llmRequest(1, 1), buildChunk(1, 1, reasoning('Hmm'))]);
  expect(uncommittedAnswer(onlyReasoning, 1)).toBeUndefined();
  const compaction = of([
    turnStart(1),
    { ...llmRequest(1, 1), purpose: 'compaction' },
    buildChunk(1, 1, textChunk('Summary of the conversation')),
  ]);
  expect(uncommittedAnswer(compaction, 1)).toBeUndefined();
});
