// `match`: a response reserved for the first request it matches (an agent's background or router call),
// while the others answer, in order, whatever no match claims.
import { expect, test } from '@playwright/test';
import { parseScript, type Script, ScriptError } from './script.js';
import { startEmulator } from './server.js';
import { rawPost } from './testing.js';

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
