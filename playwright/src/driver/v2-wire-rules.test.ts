// The v2 wire rules over stdout as written: one idle per prompt turn on a connection, and a resumed session's
// state snapshot in a new agent process (which ACP v2 requires before the resume response) is no second idle.
import { expect, test } from '@playwright/test';
import { v2WireProblems } from './v2-wire-rules.js';

const idle = (session: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: session,
      update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' },
    },
  });
const ack = JSON.stringify({ jsonrpc: '2.0', id: 3, result: { messageId: 'm1' } });
const snapshot = JSON.stringify({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: 's1', update: { sessionUpdate: 'state_update', state: 'idle' } },
});

test('a second idle with no prompt on the same connection is named by its line', () => {
  const lines = [ack, idle('s1'), idle('s1')].map((text) => ({ text, process: 0 }));
  expect(v2WireProblems(lines)).toEqual([
    'stdout line 3 (agent process 1): ACP v2: a second idle state update for session s1 with no prompt since the last one (a session goes idle once per prompt turn)',
  ]);
});

test("a resumed session's idle snapshot in a new agent process is no second idle", () => {
  const lines = [
    { text: ack, process: 0 },
    { text: idle('s1'), process: 0 },
    { text: snapshot, process: 1 },
  ];
  expect(v2WireProblems(lines)).toEqual([]);
});
