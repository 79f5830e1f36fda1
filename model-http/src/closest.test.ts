import { expect, test } from '@playwright/test';
import type { Exchange } from './exchange-log.js';
import type { JsonValue } from './normalize.js';
import { type ModelServer, startModelServer } from './server.js';
import { rawRequest } from './testing/raw-client.js';

// gemini-cli's shape: the turn's second call carries the model's function call (with its call id) and the result.
const PATH = '/v1beta/models/gemini-x:streamGenerateContent?alt=sse';
const ask = { role: 'user', parts: [{ text: 'Which port does config.toml set? 你好 👋' }] };
const called = (id: string) => ({
  role: 'model',
  parts: [{ functionCall: { id, name: 'read_file', args: { path: '/tmp/acp-w0-AAAA/work/config.toml' } } }],
});
const body = (...contents: JsonValue[]): JsonValue => ({
  contents,
  systemInstruction: { parts: [{ text: 'You are a coding agent.' }] },
});
const recorded = (b: JsonValue): Exchange => ({
  request: { method: 'POST', path: PATH, body: b },
  response: {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    frames: [{ text: 'data: {}\r\n\r\n' }],
  },
});

const servers: ModelServer[] = [];
test.afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function drift(exchanges: Exchange[], live: JsonValue): Promise<string> {
  const rep = await startModelServer({ mode: 'replay', exchanges, optional: () => true });
  servers.push(rep);
  const res = await rawRequest(rep.url, 'POST', PATH, JSON.stringify(live));
  expect(res.status).toBe(400);
  return rep.verdict().message;
}

test('two recorded calls one difference away: the one at the same place in the conversation and of the same shape is named', async () => {
  // Exchange 0 is the turn's first call (one message fewer: one difference, an added message); exchange 1 is
  // the same call as the live one but for the model's call id (one difference, a changed value).
  const message = await drift(
    [recorded(body(ask)), recorded(body(ask, called('call_1')))],
    body(ask, called('call_2')),
  );
  expect(message).toContain(
    [
      'call 1 (POST /v1beta/models/gemini-x:streamGenerateContent?alt=sse) matches no recorded exchange; closest is exchange 1, first differing at body.contents[1].parts[0].functionCall.id (1 difference(s) in all):',
      '    recorded: "call_1" (at character 5)',
      '    live:     "call_2" (at character 5)',
    ].join('\n'),
  );
  expect(message).not.toContain('(absent)');
});

test('still tied (same count, place and shape): both are shown', async () => {
  const message = await drift(
    [recorded(body(ask, called('call_1'))), recorded(body(ask, called('call_9')))],
    body(ask, called('call_5')),
  );
  expect(message).toContain(
    [
      'call 1 (POST /v1beta/models/gemini-x:streamGenerateContent?alt=sse) matches no recorded exchange; closest are exchanges 0 and 1, equally near:',
      '    exchange 0, first differing at body.contents[1].parts[0].functionCall.id (1 difference(s) in all):',
      '      recorded: "call_1" (at character 5)',
      '      live:     "call_5" (at character 5)',
      '    exchange 1, first differing at body.contents[1].parts[0].functionCall.id (1 difference(s) in all):',
      '      recorded: "call_9" (at character 5)',
      '      live:     "call_5" (at character 5)',
    ].join('\n'),
  );
});

test('fewer differences still win over place and shape', async () => {
  const message = await drift(
    [recorded(body(ask, called('call_1'), ask)), recorded(body(ask))],
    body(ask, called('call_1'), { role: 'user', parts: [{ text: 'another question' }] }),
  );
  expect(message).toContain('closest is exchange 0, first differing at body.contents[2].parts[0].text');
});
