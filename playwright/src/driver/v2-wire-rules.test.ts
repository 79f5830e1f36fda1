import { expect, test } from '@playwright/test';
import { v2WireProblems } from './v2-wire-rules.js';

const update = (u: object) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: u } });
const ack = JSON.stringify({ jsonrpc: '2.0', id: 2, result: { messageId: 'm1' } });
const idle = update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });

test('one idle per prompt: a second in the same process is named; a resumed session in a new process states its own', () => {
  const turn = [ack, idle].map((text) => ({ text, process: 0 }));
  expect(v2WireProblems([...turn, { text: idle, process: 0 }])).toEqual([
    'stdout line 3 (agent process 1): ACP v2: a second idle state update for session s1 with no prompt since the last one (a session goes idle once per prompt turn)',
  ]);
  // As claude-agent-acp 0.101 resumes with replayFrom start in a restarted process: the replay, then idle.
  const resumed = [
    update({ sessionUpdate: 'user_message', messageId: 'm1', content: [] }),
    update({ sessionUpdate: 'user_message_chunk', messageId: 'm1', content: { type: 'text', text: 'hi' } }),
    update({ sessionUpdate: 'state_update', state: 'idle', background: [] }),
  ].map((text) => ({ text, process: 1 }));
  expect(v2WireProblems([...turn, ...resumed])).toEqual([]);
});
