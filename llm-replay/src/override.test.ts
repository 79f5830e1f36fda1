import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOverride, parseOverride, ReplayOverrideError } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';

const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

test('the README example override parses into the documented entries', () => {
  const block = /```json replay\.override\.json\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'README has a ```json replay.override.json example').toBeTruthy();
  const entries = parseOverride(block!, 'example/replay.override.json');
  expect(entries.map((e) => e.kind)).toEqual(['chunks', 'throw', 'hang']);
  expect(entries[0]).toMatchObject({
    kind: 'chunks',
    request: { turn: 1, step: 1, purpose: 'turn', location: 'calls[0] of example/replay.override.json' },
  });
  expect(entries[1]).toMatchObject({
    kind: 'throw',
    code: 'stream_cut',
    chunks: [{ type: 'text', text: 'Partial ans' }],
    request: { turn: 2, step: 1 },
  });
  // No fingerprint and no position: served without any check.
  expect(entries[2]).toEqual({
    kind: 'hang',
    chunks: [],
    request: { location: 'calls[2] of example/replay.override.json' },
  });
});

test('a throw before the stream carries the provider code and HTTP status', () => {
  const [entry] = parseOverride(
    JSON.stringify({
      calls: [
        {
          kind: 'throw',
          code: 'unauthorized',
          status: 401,
          message: 'Authentication Fails',
          fingerprint: 'abc',
        },
      ],
    }),
    'o.json',
  );
  expect(entry).toEqual({
    kind: 'throw',
    chunks: [],
    code: 'unauthorized',
    status: 401,
    message: 'Authentication Fails',
    request: { location: 'calls[0] of o.json', fingerprint: { hash: 'abc' } },
  });
});

test('bad override files name the file, the field and the fix', () => {
  expect(() => parseOverride('{"calls": [', 'bad/replay.override.json')).toThrow(
    /^bad\/replay\.override\.json: not valid JSON: /,
  );
  expect(() =>
    parseOverride(
      JSON.stringify({ calls: [{ kind: 'chunks', chunks: [{ type: 'text', text: 'x' }] }] }),
      'o.json',
    ),
  ).toThrow(
    'o.json: does not match the replay.override.json schema:\n  calls[0].chunks[0]: a chunks call must end with a terminal finish chunk ({"type":"finish","reason":"stop"})',
  );
  expect(() =>
    parseOverride(
      JSON.stringify({
        calls: [
          {
            kind: 'chunks',
            chunks: [
              { type: 'finish', reason: 'stop' },
              { type: 'text', text: 'x' },
            ],
          },
        ],
      }),
      'o.json',
    ),
  ).toThrow('calls[0].chunks[0]: only the last chunk of a chunks call may be a finish chunk');
  expect(() =>
    parseOverride(JSON.stringify({ calls: [{ kind: 'throw', code: 'teapot', message: 'x' }] }), 'o.json'),
  ).toThrow(/o\.json: does not match the replay\.override\.json schema:\n {2}calls\[0\]\.code: /);
  expect(() =>
    parseOverride(
      JSON.stringify({ calls: [{ kind: 'hang', chunks: [{ type: 'finish', reason: 'stop' }] }] }),
      'o.json',
    ),
  ).toThrow(
    'o.json: calls[0].chunks[0]: a hang call\'s prefix chunks cannot contain a finish chunk (use kind "chunks" for a call that finishes)',
  );
  expect(() => parseOverride(JSON.stringify({ calls: [] }), 'o.json')).toThrow(/calls: /);
  expect(() => parseOverride(JSON.stringify({ calls: [{ kind: 'sleep' }] }), 'o.json')).toThrow(
    /calls\[0\]\.kind: /,
  );
  expect(() => parseOverride(JSON.stringify({ calls: [{ kind: 'hang', turns: 1 }] }), 'o.json')).toThrow(
    /calls\[0\]: .*turns/,
  );
});

test('an override file may start with a byte order mark; bytes that are not UTF-8 are named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'override-utf8-'));
  const file = join(dir, 'replay.override.json');
  writeFileSync(
    file,
    `\ufeff${JSON.stringify({ calls: [{ kind: 'throw', code: 'unauthorized', message: 'boom' }] })}`,
  );
  expect(await loadOverride(file)).toHaveLength(1);
  writeFileSync(
    file,
    Buffer.from('{ "calls": [{ "kind": "throw", "code": "unauthorized", "message": "caf\xe9" }] }', 'latin1'),
  );
  await expect(loadOverride(file)).rejects.toThrow(
    new ReplayOverrideError(`${file}:1: not valid UTF-8 (byte 0xe9 at column 71); save the file as UTF-8`),
  );
});
