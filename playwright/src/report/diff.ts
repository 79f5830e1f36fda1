/** Line diffs for failure reports, computed by jsdiff. */
import { FILE_HEADERS_ONLY, formatPatch, type StructuredPatchHunk, structuredPatch } from 'diff';

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
function wholesale(expected: string, actual: string): StructuredPatchHunk {
  const a = splitLines(expected);
  const b = splitLines(actual);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++;
  const removed = a.slice(pre, a.length - suf);
  const added = b.slice(pre, b.length - suf);
  return {
    oldStart: removed.length ? pre + 1 : pre,
    oldLines: removed.length,
    newStart: added.length ? pre + 1 : pre,
    newLines: added.length,
    lines: [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)],
  };
}

/** The hunks of the line diff of two texts (`context` lines around each change); none when equal. */
export function diffHunks(expected: string, actual: string, context = 3): StructuredPatchHunk[] {
  if (expected === actual) return [];
  const patch = structuredPatch('', '', expected, actual, '', '', {
    context,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  return patch?.hunks ?? [wholesale(expected, actual)];
}

/** `diff -u` style text of two texts (`--- expected`, `+++ actual`, hunks); empty when they are equal. */
export function unifiedDiff(
  expected: string,
  actual: string,
  names = { expected: 'expected', actual: 'actual' },
  context = 3,
): string {
  if (expected === actual) return '';
  const hunks = diffHunks(expected, actual, context);
  const patch = {
    oldFileName: names.expected,
    newFileName: names.actual,
    oldHeader: '',
    newHeader: '',
    hunks,
  };
  return formatPatch(patch, FILE_HEADERS_ONLY);
}

/** 1-based number of the first line that differs between two texts, or undefined when equal. */
export function firstDifferingLine(expected: string, actual: string): number | undefined {
  if (expected === actual) return undefined;
  const a = splitLines(expected);
  const b = splitLines(actual);
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i + 1;
  return Math.max(a.length, b.length);
}
