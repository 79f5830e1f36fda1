// Script vars: answers that quote values of the request, as a real model quotes its cwd and tool output.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${name}` in plain strings is the script syntax under test.
import { expect, test } from '@playwright/test';
import { parseScript, ScriptError } from './script.js';
import { startEmulator } from './server.js';
import { dataChunks, rawPost } from './testing.js';

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
