// `match`: a response reserved for the first request it matches (an agent's background or router call),
// while the others answer, in order, whatever no match claims.
import { expect, test } from '@playwright/test';
import { parseScript, type Script, ScriptError } from './script.js';
import { startEmulator } from './server.js';
import { rawPost } from './testing/raw-http.js';

const chat = (content: string) => ({ model: 'm', messages: [{ role: 'user', content }] });
const answer = (text: string) => JSON.parse(text).choices?.[0]?.message?.content;

test('a matched response answers the request it matches, whenever it comes; the rest keep their order', async () => {
  const script: Script = {
    responses: [
      { reply: { text: 'turn 1' } },
      { reply: { text: 'a title' }, match: { bodyIncludes: 'Generate a title' } },
      { reply: { text: 'turn 2' } },
      { reply: { text: 'routed' }, match: { path: '/v1beta/models/router:generateContent' } },
    ],
  };
  const emu = await startEmulator({ script });
  try {
    const post = async (content: string) =>
      answer((await rawPost(`${emu.url}/chat/completions`, chat(content))).text);
    expect(await post('Generate a title for: hello')).toBe('a title');
    expect(await post('hello')).toBe('turn 1');
    // The title response is used: a second title request takes the next unmatched one.
    expect(await post('Generate a title again')).toBe('turn 2');
    const routed = await rawPost(`${emu.url}/v1beta/models/router:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
    });
    expect(JSON.parse(routed.text).candidates[0].content.parts[0].text).toBe('routed');
    expect(emu.requests.map((r) => r.entry)).toEqual([1, 0, 2, 3]);
    const over = await rawPost(`${emu.url}/chat/completions`, chat('more'));
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text).error.message).toBe(
      'emulator: script exhausted: request #4 (POST /chat/completions) found no unused response in <inline script> ' +
        '(4 response(s), 2 with "match" it does not meet); add a response, or a "match" for this request, to the script',
    );
  } finally {
    await emu.close();
  }
});

test('both fields of a match must hold, and a match with neither is a script error naming the entry', async () => {
  const emu = await startEmulator({
    script: {
      responses: [
        { reply: { text: 'both' }, match: { path: '/v1/chat/completions', bodyIncludes: 'memory' } },
        { reply: { text: 'plain' } },
      ],
    },
  });
  try {
    expect(answer((await rawPost(`${emu.url}/chat/completions`, chat('memory'))).text)).toBe('plain');
    expect(answer((await rawPost(`${emu.url}/v1/chat/completions`, chat('memory'))).text)).toBe('both');
  } finally {
    await emu.close();
  }
  expect(() => parseScript({ responses: [{ reply: { text: 'x' }, match: {} }] })).toThrow(ScriptError);
  expect(() => parseScript({ responses: [{ reply: { text: 'x' }, match: {} }] })).toThrow(
    /responses\[0\]\.match: give "path", "bodyIncludes" or both/,
  );
  expect(() => parseScript({ responses: [{ fail: { kind: 'hang' }, match: { path: 'v1' } }] })).toThrow(
    /responses\[0\]\.match\.path: a path like "\/v1\/messages"/,
  );
});

test('recording twice against one running emulator: each conversation is served the same answers again', async () => {
  // A recording upstream's script: answers picked by a phrase of the prompt, one conversation with a tool call.
  const script: Script = {
    responses: [
      {
        match: { bodyIncludes: 'Create notes.txt' },
        reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'milk' } }] },
      },
      { match: { bodyIncludes: 'Create notes.txt' }, reply: { text: 'Done: notes.txt holds your list.' } },
      { match: { bodyIncludes: 'capital of France' }, reply: { text: 'Paris.' } },
    ],
  };
  const emu = await startEmulator({ script });
  try {
    const ask = async (messages: unknown[]) => {
      const res = await rawPost(`${emu.url}/chat/completions`, { model: 'm', messages });
      const message = JSON.parse(res.text).choices?.[0]?.message;
      if (res.status !== 200) return `HTTP ${res.status}`;
      return message.tool_calls ? JSON.stringify(message.tool_calls) : message.content;
    };
    const prompt = { role: 'user', content: 'Create notes.txt with milk' };
    const notesTest = async () => {
      const call = await ask([prompt]);
      const done = await ask([
        prompt,
        { role: 'assistant', content: null, tool_calls: JSON.parse(call) },
        { role: 'tool', tool_call_id: 'call_0', content: 'written' },
      ]);
      return [call, done];
    };
    const first = [...(await notesTest()), await ask([{ role: 'user', content: 'The capital of France?' }])];
    expect(first[1]).toBe('Done: notes.txt holds your list.');
    expect(first[2]).toBe('Paris.');
    // The whole recording again, then one test again (`-g`): the same answers, the same call ids.
    const second = [...(await notesTest()), await ask([{ role: 'user', content: 'The capital of France?' }])];
    expect(second).toEqual(first);
    expect(await notesTest()).toEqual(first.slice(0, 2));
    // An extra call in the middle of a conversation is still an exhausted script, not an answer by accident.
    expect(
      await ask([
        prompt,
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: 'Create notes.txt again' },
      ]),
    ).toBe('HTTP 400');
  } finally {
    await emu.close();
  }
});
