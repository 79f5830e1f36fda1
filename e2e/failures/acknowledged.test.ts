import type { StdoutLine } from '@acp-snapshot/playwright/testing';
import { expect, test } from '@playwright/test';
import { unloggedAnnouncements } from './acknowledged.js';

const header =
  '{"seq":0,"ts":0,"type":"session/header","format":"acp-snapshot/session-log","version":1,"sessionId":"s","agent":{"name":"a","version":"1"},"provider":{"plugin":"p","model":"m"},"cwd":"/w","systemPrompt":"","tools":[],"config":{}}';
const row = (seq: number, event: object) => JSON.stringify({ seq, ts: seq, event });
const out = (...messages: object[]): StdoutLine[] =>
  messages.map((m) => ({ text: JSON.stringify({ jsonrpc: '2.0', ...m }), process: 0 }));
const chunk = (text: string) => ({
  method: 'session/update',
  params: {
    sessionId: 's',
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
  },
});
const toolCall = (toolCallId: string) => ({
  method: 'session/update',
  params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId, title: 't' } },
});

const log = (...events: object[]) => `${[header, ...events.map((e, i) => row(i + 1, e))].join('\n')}\n`;
const text = (t: string) => ({ type: 'assistant/chunk', turn: 1, step: 1, chunk: { type: 'text', text: t } });

test('nothing is reported when the log holds everything the client was told (and more)', () => {
  const stdout = out(chunk('Hel'), chunk('lo'), toolCall('c1'), {
    id: 3,
    result: { stopReason: 'end_turn' },
  });
  const raw = log(
    text('Hel'),
    text('lo'),
    text(' there'),
    { type: 'tool/call', turn: 1, step: 1, toolCallId: 'c1', name: 'bash', arguments: '{}' },
    { type: 'turn/end', turn: 1, kind: 'completed' },
  );
  expect(unloggedAnnouncements(stdout, raw)).toEqual([]);
});

test('message text, a tool call and a turn end the client saw but the log lacks are each named', () => {
  const stdout = out(chunk('Hel'), chunk('lo'), toolCall('c1'), {
    id: 3,
    error: { code: -32603, data: { turn: 1 } },
  });
  expect(unloggedAnnouncements(stdout, log(text('Hel')))).toEqual([
    'the client got the message text "Hello" but the log\'s assistant/chunk events hold only "Hel"',
    'stdout line 3 announced tool call c1, but the log has no tool/call event for it',
    'the client got the end of 1 prompt turn(s), but the log holds 0 turn/end event(s)',
  ]);
});

test('a torn last line (a writer killed mid-write) does not hide what was logged before it', () => {
  const raw = `${log(text('Hi'))}{"seq":2,"ts":2,"event":{"type":"assistant/ch`;
  expect(unloggedAnnouncements(out(chunk('Hi')), raw)).toEqual([]);
});
