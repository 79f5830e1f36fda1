import { isUtf8 } from 'node:buffer';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
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
