// Script vars: answers that quote values of the request, as a real model quotes its cwd and tool output.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${name}` in plain strings is the script syntax under test.
import { expect, test } from '@playwright/test';
import { parseScript, ScriptError } from './script.js';
import { startEmulator } from './server.js';
import { dataChunks, rawPost } from './testing/raw-http.js';

const vars = {
  cwd: { from: 'system', pattern: 'Working directory: (\\S+)' },
  listed: { from: 'tool', pattern: '^(/\\S+)' },
} as const;

const post = (url: string, messages: unknown[]) =>
  rawPost(`${url}/chat/completions`, { model: 'm', stream: true, messages });

const streamed = (text: string) => {
  const chunks = dataChunks(text);
  const content = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  const args = chunks
    .flatMap((c) => c.choices[0]?.delta?.tool_calls ?? [])
    .map((t) => t.function?.arguments ?? '')
    .join('');
  return { content, args };
};

test('declared vars are templated into text and tool arguments from the newest matching message; others stay', async () => {
  const emu = await startEmulator({
    script: parseScript({
      vars,
      responses: [
        {
          reply: {
            text: 'Reading ${cwd}/a.txt (not ${HOME}).',
            toolCalls: [{ name: 'bash', arguments: { command: 'ls ${cwd} && echo ${HOME}' } }],
          },
        },
        { reply: { text: 'The parent is ${listed}.' } },
      ],
    }),
  });
  try {
    const system = {
      role: 'system',
      content: 'Be brief.\n\nWorking directory: /tmp/w/work\nRelative paths...',
    };
    const first = streamed((await post(emu.url, [system, { role: 'user', content: 'hi' }])).text);
    expect(first.content).toBe('Reading /tmp/w/work/a.txt (not ${HOME}).');
    expect(JSON.parse(first.args)).toEqual({ command: 'ls /tmp/w/work && echo ${HOME}' });
    const tools = [
      { role: 'tool', tool_call_id: 'a', content: '/old\n' },
      { role: 'tool', tool_call_id: 'b', content: '/tmp/w\n[exit code: 0]' },
    ];
    const second = streamed((await post(emu.url, [system, ...tools])).text);
    expect(second.content).toBe('The parent is /tmp/w.');
  } finally {
    await emu.close();
  }
});

test('a var that matches nothing answers 400 naming the response and the pattern', async () => {
  const emu = await startEmulator({
    script: parseScript({ vars, responses: [{ reply: { text: 'in ${listed}' } }] }),
  });
  try {
    const res = await post(emu.url, [{ role: 'user', content: 'hi' }]);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.message).toBe(
      'emulator: <inline script> response 0: var listed: /^(/\\S+)/ matched no tool message of the request; ' +
        'fix the pattern in the script (vars) or the order of its responses',
    );
    expect(emu.requests[0]?.served).toBe('script_var');
  } finally {
    await emu.close();
  }
});

test('a var pattern that does not compile, or has no capture group, is a script error naming the field', () => {
  const bad = (pattern: string) => () =>
    parseScript({ vars: { x: { from: 'system', pattern } }, responses: [] }, 's.json');
  expect(bad('(')).toThrow(ScriptError);
  expect(bad('(')).toThrow(/s\.json: vars\.x\.pattern: not a valid regular expression/);
  expect(bad('abc')).toThrow(/vars\.x\.pattern: needs one capture group/);
  expect(() =>
    parseScript({ vars: { x: { from: 'nowhere', pattern: '(a)' } }, responses: [] }, 's.json'),
  ).toThrow(/vars\.x\.from/);
});

test('from "system" finds system text wherever a format puts it, a system message inside the messages too', async () => {
  const sys = 'Working directory: /tmp/acp-snap-1f2e3d4c-Xy9/work';
  const user = (text: string) => ({ role: 'user', content: text });
  // Each format's route, non-streamed, and requests with the system text in each place that format allows.
  const places: Array<[string, string, Record<string, unknown>]> = [
    [
      'chat, a developer message',
      '/v1/chat/completions',
      { messages: [{ role: 'developer', content: sys }, user('hi')] },
    ],
    [
      'chat, a trailing system message',
      '/v1/chat/completions',
      { messages: [user('hi'), { role: 'system', content: sys }] },
    ],
    ['responses, instructions as a string', '/v1/responses', { instructions: sys, input: 'hi' }],
    [
      'responses, instructions as items',
      '/v1/responses',
      { instructions: [{ role: 'developer', content: sys }], input: 'hi' },
    ],
    [
      'responses, a system item',
      '/v1/responses',
      {
        input: [
          { type: 'message', role: 'system', content: [{ type: 'input_text', text: sys }] },
          user('hi'),
        ],
      },
    ],
    [
      'anthropic, top-level system blocks',
      '/v1/messages',
      { system: [{ type: 'text', text: sys }], messages: [user('hi')] },
    ],
    [
      'anthropic, a system message inside messages',
      '/v1/messages',
      { messages: [user('hi'), { role: 'system', content: [{ type: 'text', text: sys }] }] },
    ],
    [
      'gemini, systemInstruction',
      '/v1beta/models/g:generateContent',
      { systemInstruction: { parts: [{ text: sys }] }, contents: [] },
    ],
    [
      'gemini, system_instruction',
      '/v1beta/models/g:generateContent',
      { system_instruction: { parts: [{ text: sys }] }, contents: [] },
    ],
    [
      'gemini, systemInstruction as a string',
      '/v1beta/models/g:generateContent',
      { systemInstruction: sys, contents: [] },
    ],
  ];
  const emu = await startEmulator({
    script: parseScript({
      vars: { cwd: vars.cwd },
      responses: places.map(() => ({ reply: { text: 'I am in ${cwd}.' } })),
    }),
  });
  try {
    const answers: Record<string, string> = {};
    for (const [where, path, body] of places) {
      const res = await rawPost(`${emu.url}${path}`, { model: 'm', max_tokens: 9, ...body });
      answers[where] = res.status === 200 ? res.text : `HTTP ${res.status}`;
    }
    const missed = Object.entries(answers).filter(
      ([, text]) => !text.includes('I am in /tmp/acp-snap-1f2e3d4c-Xy9/work.'),
    );
    expect(missed.map(([where, text]) => `${where}: ${text.slice(0, 160)}`)).toEqual([]);
  } finally {
    await emu.close();
  }
});
