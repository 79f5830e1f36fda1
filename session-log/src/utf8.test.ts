import { isUtf8 } from 'node:buffer';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { buildHeader } from './builders.js';
import { LogFormatError, serializeLog } from './codec.js';
import { readLogFile } from './reader.js';
import { invalidUtf8 } from './testing/hostile.js';
import { decodeUtf8File, findInvalidUtf8, handWrittenFileText, Utf8Error } from './utf8.js';

const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

test('findInvalidUtf8 names the line, byte column and byte of the first bad sequence', () => {
  expect(findInvalidUtf8(bytes('{"a":"é✓😀"}\n{}'))).toBeUndefined();
  expect(findInvalidUtf8(bytes('ok\nab', [0xff], 'c'))).toEqual({ line: 2, column: 3, byte: 0xff });
  // Multi-byte characters before it count in bytes; an overlong form, a cut sequence, a surrogate.
  expect(findInvalidUtf8(bytes('é', [0xc0, 0x80]))).toEqual({ line: 1, column: 3, byte: 0xc0 });
  expect(findInvalidUtf8(bytes('x\n\n', [0xe2, 0x82]))).toEqual({ line: 3, column: 1, byte: 0xe2 });
  expect(findInvalidUtf8(bytes('"', [0xed, 0xa0, 0x80], '"'))).toEqual({ line: 1, column: 2, byte: 0xed });
  expect(findInvalidUtf8(bytes([0xf4, 0x90, 0x80, 0x80]))).toEqual({ line: 1, column: 1, byte: 0xf4 });
});

test('findInvalidUtf8 agrees with isUtf8, and everything before the byte it names is valid UTF-8', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 20 });
  const withBad = fc.tuple(text, invalidUtf8, text).map(([a, bad, b]) => bytes(a, [...bad], b));
  fc.assert(
    fc.property(
      fc.oneof(
        text.map((t) => Buffer.from(t)),
        withBad,
      ),
      (buf) => {
        const p = findInvalidUtf8(buf);
        expect(p === undefined).toBe(isUtf8(buf));
        if (!p) return;
        let offset = 0;
        for (let line = 1; line < p.line; line++) offset = buf.indexOf(10, offset) + 1;
        offset += p.column - 1;
        expect(buf[offset]).toBe(p.byte);
        expect(isUtf8(buf.subarray(0, offset))).toBe(true);
      },
    ),
    { numRuns: 500 },
  );
});

test('decodeUtf8File keeps a BOM and fails naming file:line, the byte and the fix; hand-written files drop the BOM', () => {
  expect(decodeUtf8File(bytes('\ufeff{}'), 'f.jsonl')).toBe('\ufeff{}');
  expect(handWrittenFileText(bytes('\ufeff{"a":1}'), 'input.json')).toBe('{"a":1}');
  const bad = () => handWrittenFileText(bytes('{\n  "a": "', [0xe9], '"\n}'), 'scenarios/x/input.json');
  expect(bad).toThrow(Utf8Error);
  expect(bad).toThrow(
    'scenarios/x/input.json:2: not valid UTF-8 (byte 0xe9 at column 9); save the file as UTF-8',
  );
});

test('readLogFile: a complete line that is not UTF-8 is a LogFormatError at file:line, plain or gzip', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'utf8-'));
  try {
    const header = serializeLog([{ event: buildHeader({ cwd: '/w' }) }]);
    const line2 = '{"seq":1,"ts":1,"event":{"type":"turn/start","turn":0,"x":"';
    const body = bytes(header, line2, [0xff], '"}}\n');
    for (const [name, content] of [
      ['plain.jsonl', body],
      ['packed.jsonl.gz', gzipSync(body)],
    ] as const) {
      const file = join(dir, name);
      writeFileSync(file, content);
      const err = await readLogFile(file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LogFormatError);
      expect((err as LogFormatError).line).toBe(2);
      expect((err as Error).message).toBe(
        `${file}:2: not valid UTF-8 (byte 0xff at column ${line2.length + 1}); the log was corrupted or re-encoded after it was written: restore it from version control or record it again`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readLogFile: the first bad line is the one reported, whether it is not JSON or not UTF-8, in one read block or across them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'utf8-order-'));
  try {
    const header = serializeLog([{ event: buildHeader({ cwd: '/w' }) }]);
    const good = '{"seq":1,"ts":1,"event":{"type":"turn/start","turn":1}}\n';
    // Lines 2..n-1 are fine; a filler pushes the bad lines past the first 64 KiB block in the long case.
    for (const filler of [0, 2000]) {
      const before = bytes(header, good.repeat(filler));
      const line = 2 + filler;
      const notJson = bytes(before, '{"seq":2,\n', [0xff], '\n');
      const notUtf8 = bytes(before, [0xff], '\n{"seq":2,\n');
      const file = join(dir, 'log.jsonl');
      for (const [content, message] of [
        [notJson, `${file}:${line}: bad row at (row): not valid JSON`],
        [notUtf8, `${file}:${line}: not valid UTF-8 (byte 0xff at column 1)`],
      ] as const) {
        writeFileSync(file, content);
        const err = await readLogFile(file).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(LogFormatError);
        expect((err as LogFormatError).line).toBe(line);
        expect((err as Error).message.startsWith(message), (err as Error).message).toBe(true);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
