import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { loadScript, parseScript, ScriptError } from './script.js';
import { startEmulator } from './server.js';

function writeScript(content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'emu-script-')), 'script.json');
  writeFileSync(file, content);
  return file;
}

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

test('a valid script loads with replies and failures in order', () => {
  const file = writeScript(
    JSON.stringify({
      description: 'two calls',
      responses: [
        {
          reply: { text: 'hi', toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] },
          chunking: { textPieceChars: 2 },
        },
        { fail: { kind: 'http', status: 429, retryAfterMs: 5 } },
        { fail: { kind: 'hang' } },
      ],
    }),
  );
  const script = loadScript(file);
  expect(script.description).toBe('two calls');
  expect(script.responses.map((r) => ('reply' in r ? 'reply' : r.fail.kind))).toEqual([
    'reply',
    'http',
    'hang',
  ]);
});

test('a wrong field type names the file and the JSON path', () => {
  const file = writeScript(
    JSON.stringify({
      responses: [{ reply: { text: 'ok' } }, { reply: { toolCalls: [{ name: 7, arguments: {} }] } }],
    }),
  );
  const e = errorOf(() => loadScript(file));
  expect(e).toBeInstanceOf(ScriptError);
  expect(e.message).toContain(file);
  expect(e.message).toContain('responses[1].reply.toolCalls[0].name');
  expect(e.message).toContain('emulator/README.md');
});

test('an entry without reply or fail, an unknown key and an unknown failure kind are each reported', () => {
  const e = errorOf(() =>
    parseScript(
      {
        responses: [
          { answer: 'x' },
          { reply: { txt: 'typo' } },
          { fail: { kind: 'explode' } },
          { fail: { kind: 'http', status: 200 } },
        ],
      },
      'inline.json',
    ),
  );
  expect(e.message).toContain('inline.json');
  expect(e.message).toContain('responses[0]: expected an object with a "reply" or a "fail" key');
  expect(e.message).toMatch(/responses\[1\]\.reply: .*txt/);
  expect(e.message).toMatch(/responses\[2\]\.fail\.kind: /);
  expect(e.message).toMatch(/responses\[3\]\.fail\.status: /);
});

test('a missing responses list, invalid JSON and a missing file are clear errors', () => {
  expect(errorOf(() => parseScript({ replies: [] }, 's.json')).message).toMatch(/s\.json: [\s\S]*responses/);
  const bad = writeScript('{ "responses": [ ');
  const e = errorOf(() => loadScript(bad));
  expect(e.message).toContain(bad);
  expect(e.message).toContain('not valid JSON');
  expect(errorOf(() => loadScript('/nonexistent/emu.json')).message).toContain(
    '/nonexistent/emu.json: cannot read it',
  );
  expect(loadScript(writeScript('\ufeff{ "responses": [] }')).responses).toEqual([]);
  const latin1 = writeScript('');
  writeFileSync(latin1, Buffer.from('{ "description": "caf\xe9", "responses": [] }', 'latin1'));
  const notUtf8 = errorOf(() => loadScript(latin1));
  expect(notUtf8).toBeInstanceOf(ScriptError);
  expect(notUtf8.message).toBe(
    `emulator script ${latin1}:1: not valid UTF-8 (byte 0xe9 at column 22); save the file as UTF-8`,
  );
});

test('startEmulator rejects a bad script before listening', async () => {
  await expect(startEmulator({ script: { responses: [{ reply: { finish: 'done' } }] } })).rejects.toThrow(
    /responses\[0\]\.reply\.finish/,
  );
});

test('the example scripts are valid', () => {
  for (const name of ['hello', 'tool-call', 'failures']) {
    expect(
      loadScript(fileURLToPath(new URL(`../examples/${name}.json`, import.meta.url))).responses.length,
    ).toBeGreaterThan(0);
  }
});
