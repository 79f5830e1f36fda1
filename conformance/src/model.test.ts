// The prompt-aware model stand-in: what it answers depends on the prompt and on the tools the request offers,
// whatever the agent calls them, and it names a wire format it does not serve.

import { wireFormatOf } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import OpenAI from 'openai';
import { newestMessage, offeredTools, respondTo, startModelStandIn } from './model.js';

const CWD = '/work/space';

/** A qwen-like request: its own tool names and argument names. */
function chat(prompt: string, extra: Record<string, unknown>[] = []) {
  return {
    model: 'm',
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: [{ type: 'text', text: `<reminder>today is a day</reminder>\n${prompt}` }] },
      ...extra,
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'read_file',
          parameters: { type: 'object', properties: { absolute_path: { type: 'string' }, offset: {} } },
        },
      },
      {
        type: 'function',
        function: {
          name: 'write_file',
          parameters: { type: 'object', properties: { file_path: {}, content: {} } },
        },
      },
    ],
  };
}

test('a read prompt gets a call of the offered read tool with the absolute path; its result gets text', () => {
  expect(respondTo(chat('Read the file README.md and summarize it in one sentence.'), CWD)).toEqual({
    reply: { toolCalls: [{ name: 'read_file', arguments: { absolute_path: '/work/space/README.md' } }] },
  });
  const after = chat('Read the file README.md and summarize it.', [
    { role: 'assistant', tool_calls: [] },
    { role: 'tool', content: 'A workspace.' },
  ]);
  expect(respondTo(after, CWD)).toEqual({ reply: { text: 'Done: the tool call finished.' } });
});

test('a create prompt gets a write call with path and content; a plain prompt and a background call get text', () => {
  expect(respondTo(chat('Create a file named conformance.txt containing the word ok.'), CWD)).toEqual({
    reply: {
      toolCalls: [
        { name: 'write_file', arguments: { file_path: '/work/space/conformance.txt', content: 'ok\n' } },
      ],
    },
  });
  const text = { reply: { text: 'Hello from the conformance model stand-in.' } };
  expect(respondTo(chat('Say hello in one short sentence.'), CWD)).toEqual(text);
  // A read prompt without a read tool (a background call: titles, suggestions) is answered with text.
  expect(respondTo({ messages: [{ role: 'user', content: 'Read the file README.md now' }] }, CWD)).toEqual(
    text,
  );
});

test('a system message after the prompt (claude-agent-acp 0.101) does not hide the prompt', () => {
  const trailing = { role: 'system', content: 'Respond in the language of the user.' };
  const request = chat('Create a file named conformance.txt containing the word ok.', [trailing]);
  expect(newestMessage(request)).toMatchObject({ kind: 'user' });
  expect(respondTo(request, CWD)).toEqual({
    reply: {
      toolCalls: [
        { name: 'write_file', arguments: { file_path: '/work/space/conformance.txt', content: 'ok\n' } },
      ],
    },
  });
  const slow = chat('Count slowly from one to one thousand.', [
    trailing,
    { role: 'developer', content: 'x' },
  ]);
  expect(respondTo(slow, CWD)).toMatchObject({ fail: { kind: 'hang' } });
});

test('a prompt that is to be cancelled streams a little, then stalls', () => {
  expect(respondTo(chat('Count slowly from one to one thousand.'), CWD)).toMatchObject({
    fail: { kind: 'hang', afterChunks: 2 },
  });
});

test('the newest message and the tools are read from all four wire formats', () => {
  const read = 'Read the file README.md please';
  expect(
    newestMessage({
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: read }] }],
    }),
  ).toEqual({
    kind: 'user',
    text: read,
  });
  expect(newestMessage({ input: [{ type: 'function_call_output', output: 'x' }] })).toEqual({
    kind: 'tool-result',
  });
  expect(
    newestMessage({ messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] }),
  ).toEqual({
    kind: 'tool-result',
  });
  expect(newestMessage({ contents: [{ role: 'user', parts: [{ text: read }] }] })).toEqual({
    kind: 'user',
    text: read,
  });
  expect(
    offeredTools({
      tools: [
        { name: 'Read', input_schema: { properties: { file_path: {} } } },
        { functionDeclarations: [{ name: 'read_file', parametersJsonSchema: { properties: { path: {} } } }] },
        { type: 'function', name: 'shell', parameters: { properties: {} } },
      ],
    }).map((t) => t.name),
  ).toEqual(['Read', 'read_file', 'shell']);
  expect(wireFormatOf('/v1/chat/completions')).toBe('openai-chat');
  expect(wireFormatOf('/v1/responses')).toBe('openai-responses');
  expect(wireFormatOf('/v1/messages')).toBe('anthropic-messages');
  expect(wireFormatOf('/v1beta/models/gemini-2.5-pro:streamGenerateContent')).toBe('gemini');
  expect(wireFormatOf('/')).toBeUndefined();
});

test('served over HTTP to an OpenAI client: a streamed tool call; an unserved request is named', async () => {
  const standIn = await startModelStandIn(CWD);
  try {
    const client = new OpenAI({ baseURL: `${standIn.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    const body = chat('Read the file README.md and summarize it in one sentence.');
    const stream = await client.chat.completions.create({
      ...(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming),
      stream: true,
    });
    let name = '';
    let args = '';
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name += call?.function?.name ?? '';
      args += call?.function?.arguments ?? '';
    }
    expect({ name, args: JSON.parse(args) }).toEqual({
      name: 'read_file',
      args: { absolute_path: '/work/space/README.md' },
    });
    expect(standIn.unsupported()).toBeUndefined();
    // The emulator serves Anthropic Messages too; a request no wire format answers is named.
    const r = await fetch(`${standIn.url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(404);
    expect(standIn.unsupported()).toBe(
      'the agent asked the model stand-in for POST /v1/embeddings, which it does not serve',
    );
  } finally {
    await standIn.close();
  }
});

test('any other unserved request is named too; a HEAD preflight is not', async () => {
  const standIn = await startModelStandIn(CWD);
  try {
    await fetch(`${standIn.url}/`, { method: 'HEAD' });
    expect(standIn.unsupported()).toBeUndefined();
    await fetch(`${standIn.url}/v1/models`);
    expect(standIn.unsupported()).toBe(
      'the agent asked the model stand-in for GET /v1/models, which it does not serve',
    );
  } finally {
    await standIn.close();
  }
});

test("a structured-output call (gemini-cli's router) is answered with JSON of its schema", () => {
  const router = {
    contents: [{ role: 'user', parts: [{ text: 'Rate the complexity of: say hi' }] }],
    generationConfig: {
      responseMimeType: 'application/json',
      responseJsonSchema: {
        type: 'OBJECT',
        properties: {
          complexity_reasoning: { type: 'STRING' },
          complexity_score: { type: 'INTEGER', description: 'Complexity score from 1-100.' },
        },
        required: ['complexity_reasoning', 'complexity_score'],
      },
    },
  };
  const entry = respondTo(router, CWD);
  expect('reply' in entry && JSON.parse(entry.reply.text!)).toEqual({
    complexity_reasoning: 'stand-in',
    complexity_score: 1,
  });
});
