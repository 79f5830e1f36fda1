import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { findLoneSurrogate, loneSurrogateMessage } from './lone-surrogates.js';

/** JSON with every non-ASCII character escaped (Python's ensure_ascii): pairs as two escapes. */
const asciiJson = (value: unknown) =>
  JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

test('findLoneSurrogate: JSON of well-formed text has none, raw or with every character escaped', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), (s) => {
      const doc = { text: s, quoted: `\\${s}\\\\ud83d` };
      return (
        findLoneSurrogate(JSON.stringify(doc)) === undefined &&
        findLoneSurrogate(asciiJson(doc)) === undefined
      );
    }),
  );
});

test('findLoneSurrogate: a string cut inside a pair is found at the escape, in bytes of its line', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 10 }), fc.nat(3), (before, lines) => {
      const line = JSON.stringify({ before, cut: '…😀'.slice(0, 2) });
      const text = `${'{}\n'.repeat(lines)}${line}`;
      const at = line.indexOf('\\ud83d');
      expect(findLoneSurrogate(text)).toEqual({
        line: lines + 1,
        column: Buffer.byteLength(line.slice(0, at)) + 1,
        unit: 0xd83d,
        escaped: true,
      });
    }),
  );
});

test('findLoneSurrogate: a low half, an escaped backslash before a pair, and a decoded lone surrogate', () => {
  expect(findLoneSurrogate('"\\ude00"')).toMatchObject({ column: 2, unit: 0xde00, escaped: true });
  expect(findLoneSurrogate('"\\ud83d\\\\ude00"')).toMatchObject({ column: 2, unit: 0xd83d });
  expect(findLoneSurrogate('"\\\\ud83d\\ude00"')).toMatchObject({ column: 9, unit: 0xde00 });
  expect(findLoneSurrogate('"\\uD83D\\uDE00"')).toBeUndefined();
  expect(findLoneSurrogate('"\\\\ud83d"')).toBeUndefined();
  expect(findLoneSurrogate('ok\né\ud83d!')).toEqual({ line: 2, column: 3, unit: 0xd83d, escaped: false });
});

test('loneSurrogateMessage names the place, the escape, what it means and the fix', () => {
  const p = findLoneSurrogate('{"t":"Run: \\ud83d"}')!;
  expect(loneSurrogateMessage('stdout line 3', p, 'fix the agent')).toBe(
    'stdout line 3: a lone surrogate escape \\ud83d at column 12, half of a UTF-16 surrogate pair (text cut inside an emoji or other non-BMP character); strict JSON parsers such as serde_json reject the whole message; fix the agent',
  );
});
