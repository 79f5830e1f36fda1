import { placeholderPattern } from '@acp-snapshot/core';

const SLICE = placeholderPattern('\\[(\\d+):(\\d*)\\]', 'y');

/**
 * A root the model streamed in pieces is normalized piece by piece (`{{cwd[0:4]}}{{cwd[4:9]}}…{{cwd[44:]}}`);
 * merged into one text, the pieces read back as the whole root, `{{cwd}}`. A run that is not one whole root,
 * from 0 to its open end with no gap, stays as it is. The transcript and the conversation view both read by it.
 */
export function joinRootSlices(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf('{{', i);
    if (start < 0) break;
    out += text.slice(i, start);
    SLICE.lastIndex = start;
    let m = SLICE.exec(text);
    let end = start;
    let expect = 0;
    let name: string | undefined;
    while (m && (name ?? m[1]) === m[1] && Number(m[2]) === expect) {
      name = m[1];
      end = SLICE.lastIndex;
      if (m[3] === '') break;
      expect = Number(m[3]);
      m = SLICE.exec(text);
    }
    const whole = name !== undefined && text.slice(start, end).endsWith(':]}}');
    out += whole ? `{{${name}}}` : text.slice(start, start + 2);
    i = whole ? end : start + 2;
  }
  return out + text.slice(i);
}
