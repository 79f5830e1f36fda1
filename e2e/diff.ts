/** Line diffs for failure reports, computed by jsdiff. */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

/**
 * Most edits jsdiff searches for (its cost grows with edits times lines): a snapshot diff touches a few
 * lines; a text rewritten throughout is shown replaced wholesale instead of searched for seconds.
 */
const MAX_EDIT_LENGTH = 1000;

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** One hunk replacing everything between the common first and last lines: a diff too large to search. */
function wholesale(expected: string, actual: string, names: { expected: string; actual: string }): string {
  const a = splitLines(expected);
  const b = splitLines(actual);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++;
  const removed = a.slice(pre, a.length - suf);
  const added = b.slice(pre, b.length - suf);
  const start = (n: number) => (n ? pre + 1 : pre);
  return [
    `--- ${names.expected}`,
    `+++ ${names.actual}`,
    `@@ -${start(removed.length)},${removed.length} +${start(added.length)},${added.length} @@`,
    ...removed.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    '',
  ].join('\n');
}

/** `diff -u` style text of two texts (`--- expected`, `+++ actual`, hunks); empty when they are equal. */
export function unifiedDiff(
  expected: string,
  actual: string,
  names = { expected: 'expected', actual: 'actual' },
  context = 3,
): string {
  if (expected === actual) return '';
  return (
    createTwoFilesPatch(names.expected, names.actual, expected, actual, '', '', {
      context,
      headerOptions: FILE_HEADERS_ONLY,
      maxEditLength: MAX_EDIT_LENGTH,
    }) ?? wholesale(expected, actual, names)
  );
}

/** 1-based number of the first line that differs between two texts, or undefined when equal. */
export function firstDifferingLine(expected: string, actual: string): number | undefined {
  if (expected === actual) return undefined;
  const a = splitLines(expected);
  const b = splitLines(actual);
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i + 1;
  return Math.max(a.length, b.length);
}
