import fc from 'fast-check';

/** Any unicode text: astral characters, combining marks, control characters, quotes and newlines. */
export const anyText = (maxLength = 40) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '\n', '"', '\\', '😀', '𝄞x', '\u2028', '{"a":1}', '\u0000', '\ud800'),
    },
  );
