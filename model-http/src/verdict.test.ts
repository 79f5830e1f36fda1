import { expect, test } from '@playwright/test';
import OpenAI from 'openai';
import type { Exchange } from './exchange-log.js';
import type { JsonValue } from './normalize.js';
import { type ModelServer, startModelServer } from './server.js';
import { requestPart } from './verdict.js';

const PATH = '/v1/chat/completions';
const SYSTEM = {
  role: 'system',
  content: 'You are a coding agent in /tmp/acp-w0-AAAA/work.',
};
const turn1 = [SYSTEM, { role: 'user', content: 'list the files 📂' }];
const answer1 = { role: 'assistant', content: 'notes.txt, 你好.md' };
const turn2 = (prompt: string) => [...turn1, answer1, { role: 'user', content: prompt }];
const completion = (content: string) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'qwen-x',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });
const recorded = (messages: JsonValue[], content: string): Exchange => ({
  request: { method: 'POST', path: PATH, body: { messages, model: 'qwen-x' } },
  response: {
    status: 200,
    headers: { 'content-type': 'application/json' },
    frames: [{ text: completion(content) }],
  },
});

const servers: ModelServer[] = [];
test.afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

test('one change, one message: the first drift in full, then its retries and the calls after it a line each', async () => {
  const rep = await startModelServer({
    mode: 'replay',
    exchanges: [
      recorded(turn1, answer1.content),
      recorded(turn2('read notes.txt'), 'It says hi 👋'),
      recorded([...turn2('read notes.txt'), { role: 'assistant', content: 'It says hi 👋' }], 'done'),
    ],
    // A refusal the SDK retries (a real agent's own retry does the same): the same request, sent again.
    unmatchedStatus: 500,
    verdict: { fix: 'npm run record -- notes' },
  });
  servers.push(rep);
  const client = new OpenAI({ baseURL: `${rep.url}/v1`, apiKey: 'dummy', maxRetries: 2, timeout: 10_000 });
  type Messages = OpenAI.Chat.Completions.ChatCompletionMessageParam[];
  const ask = (model: string, messages: unknown[]) =>
    client.chat.completions.create({ model, messages: messages as Messages });
  expect((await ask('qwen-x', turn1)).choices[0]!.message.content).toBe(answer1.content);
  // One word of the second prompt changed: refused, retried twice by the SDK (calls 3 and 4), refused again.
  await expect(ask('qwen-x', turn2('read notes.md'))).rejects.toThrow(
    /replay: call 4 .*no recorded exchange/,
  );
  // The agent then falls back to another model, which drifts too, and is retried the same way (calls 6 and 7).
  await expect(ask('qwen-fallback', turn2('read notes.md'))).rejects.toThrow(/replay: call 7/);

  expect(rep.verdict().message).toBe(
    [
      'model-http replay: one drift and 7 consequence(s) of it, in 7 model call(s):',
      `  - call 2 (POST ${PATH}) matches no recorded exchange; closest is exchange 1, first differing at body.messages[3].content (1 difference(s) in all):`,
      '    recorded: "read notes.txt" (at character 11)',
      '    live:     "read notes.md" (at character 11)',
      '  Then, following from call 2:',
      `  - call 3 (POST ${PATH}): a retry of call 2, the same request`,
      `  - call 4 (POST ${PATH}): a retry of call 2, the same request`,
      `  - call 5 (POST ${PATH}): matches no recorded exchange either (closest, exchange 1, differs at body.messages[3].content; 2 difference(s) in all)`,
      `  - call 6 (POST ${PATH}): a retry of call 5, the same request`,
      `  - call 7 (POST ${PATH}): a retry of call 5, the same request`,
      `  - exchange 1 (POST ${PATH}) was recorded but never requested`,
      `  - exchange 2 (POST ${PATH}) was recorded but never requested`,
      "If the agent's requests changed on purpose, re-record: npm run record -- notes",
    ].join('\n'),
  );
  // The same first drift as data, for the harness to key the failure's cause by (not read back from the text).
  expect(rep.verdict().drift).toEqual({
    part: 'messages[3]',
    path: 'body.messages[3].content',
    recorded: 'read notes.txt',
    live: 'read notes.md',
  });
});

test("a drift's part names where in the request it is, as llm-replay names its parts", () => {
  expect(requestPart(['body', 'messages', 3, 'content', 0, 'text'])).toBe('messages[3]');
  expect(requestPart(['body', 'input', 2])).toBe('input[2]');
  expect(requestPart(['body', 'contents', 0, 'parts', 1, 'text'])).toBe('contents[0]');
  expect(requestPart(['body', 'system', 1, 'text'])).toBe('system');
  expect(requestPart(['body', 'tools', 4, 'input_schema'])).toBe('tools');
  expect(requestPart(['body', 'model'])).toBe('model');
  expect(requestPart(['body', 'max-tokens'])).toBe('max-tokens');
  expect(requestPart(['body'])).toBe('body');
  expect(requestPart(['headers', 'anthropic-beta'])).toBe('headers');
  expect(requestPart(['path'])).toBe('path');
});

test('a changed tool result is a drift of its message: part, path and both texts as data', async () => {
  const call = {
    id: 'call_1',
    type: 'function',
    function: { name: 'read_file', arguments: '{"path":"notes.txt"}' },
  };
  const toolTurn = (result: string): JsonValue[] => [
    ...turn1,
    { role: 'assistant', content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: 'call_1', content: result },
  ];
  const rep = await startModelServer({
    mode: 'replay',
    exchanges: [recorded(toolTurn('port = 8080\nhost = "🏠"'), 'It listens on 8080.')],
  });
  servers.push(rep);
  const client = new OpenAI({ baseURL: `${rep.url}/v1`, apiKey: 'dummy', maxRetries: 0, timeout: 10_000 });
  type Messages = OpenAI.Chat.Completions.ChatCompletionMessageParam[];
  await expect(
    client.chat.completions.create({
      model: 'qwen-x',
      messages: toolTurn('port = 9090\nhost = "🏠"') as unknown as Messages,
    }),
  ).rejects.toThrow(/no recorded exchange/);
  const verdict = rep.verdict();
  expect(verdict.drift).toEqual({
    part: 'messages[3]',
    path: 'body.messages[3].content',
    recorded: 'port = 8080\nhost = "🏠"',
    live: 'port = 9090\nhost = "🏠"',
  });
  // The message a failing test shows says the same: where, and both texts around the first differing character.
  expect(verdict.message).toContain('first differing at body.messages[3].content (1 difference(s) in all):');
  expect(verdict.message).toContain('recorded: "port = 8080\\nhost = \\"🏠\\"" (at character 7)');
  expect(verdict.message).toContain('live:     "port = 9090\\nhost = \\"🏠\\"" (at character 7)');
});

test('an answer that mentions a drift is an answer: a replay that served every call has no drift', async () => {
  const mention = 'ReplayDriftError: first differing part messages[0] (the provider says: request drift)';
  const rep = await startModelServer({ mode: 'replay', exchanges: [recorded(turn1, mention)] });
  servers.push(rep);
  const client = new OpenAI({ baseURL: `${rep.url}/v1`, apiKey: 'dummy', maxRetries: 0, timeout: 10_000 });
  type Messages = OpenAI.Chat.Completions.ChatCompletionMessageParam[];
  const answer = await client.chat.completions.create({ model: 'qwen-x', messages: turn1 as Messages });
  expect(answer.choices[0]!.message.content).toBe(mention);
  expect(rep.verdict()).toMatchObject({ ok: true, message: '' });
  expect(rep.verdict().drift).toBeUndefined();
});

test('a drift alone, or unused exchanges alone, read as before: one problem a line', async () => {
  const rep = await startModelServer({ mode: 'replay', exchanges: [recorded(turn1, answer1.content)] });
  servers.push(rep);
  expect(rep.verdict().message).toBe(
    [
      'model-http replay: 1 problem(s) in 0 model call(s):',
      `  - exchange 0 (POST ${PATH}) was recorded but never requested`,
      "If the agent's requests changed on purpose, re-record the scenario.",
    ].join('\n'),
  );
  // Nothing was asked that matched nothing: no drift to key a cause by.
  expect(rep.verdict().drift).toBeUndefined();
});
