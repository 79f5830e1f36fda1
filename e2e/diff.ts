/** A unified line diff (LCS based) for failure reports: small, dependency-free, deterministic. */

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

const MAX_CELLS = 16_000_000;

function lcsOps(a: readonly string[], b: readonly string[]): Op[] {
  // Trim the common prefix and suffix first: typical snapshot diffs touch a few lines.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++;
  const ma = a.slice(pre, a.length - suf);
  const mb = b.slice(pre, b.length - suf);
  const ops: Op[] = [];
  for (let i = 0; i < pre; i++) ops.push({ kind: ' ', line: a[i]!, a: i, b: i });
  const n = ma.length;
  const m = mb.length;
  if (n * m > MAX_CELLS) {
    // Too large for a table: report the middle as replaced wholesale.
    for (const [i, line] of ma.entries()) ops.push({ kind: '-', line, a: pre + i, b: pre });
    for (const [j, line] of mb.entries()) ops.push({ kind: '+', line, a: pre + n, b: pre + j });
  } else {
    const w = m + 1;
    const t = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        t[i * w + j] =
          ma[i] === mb[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && ma[i] === mb[j]) {
        ops.push({ kind: ' ', line: ma[i]!, a: pre + i, b: pre + j });
        i++;
        j++;
      } else if (i < n && (j === m || t[(i + 1) * w + j]! >= t[i * w + j + 1]!)) {
        ops.push({ kind: '-', line: ma[i]!, a: pre + i, b: pre + j });
        i++;
      } else {
        ops.push({ kind: '+', line: mb[j]!, a: pre + i, b: pre + j });
        j++;
      }
    }
  }
  for (let k = 0; k < suf; k++) {
    ops.push({ kind: ' ', line: a[a.length - suf + k]!, a: a.length - suf + k, b: b.length - suf + k });
  }
  return ops;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `diff -u` style text of two texts; empty when they are equal. */
export function unifiedDiff(
  expected: string,
  actual: string,
  names = { expected: 'expected', actual: 'actual' },
  context = 3,
): string {
  if (expected === actual) return '';
  const ops = lcsOps(splitLines(expected), splitLines(actual));
  const changed = ops.map((o, i) => (o.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  const hunks: Array<[number, number]> = [];
  for (const i of changed) {
    const s = Math.max(0, i - context);
    const e = Math.min(ops.length - 1, i + context);
    const last = hunks[hunks.length - 1];
    if (last && s <= last[1] + 1) last[1] = e;
    else hunks.push([s, e]);
  }
  const out = [`--- ${names.expected}`, `+++ ${names.actual}`];
  for (const [s, e] of hunks) {
    const slice = ops.slice(s, e + 1);
    const aLen = slice.filter((o) => o.kind !== '+').length;
    const bLen = slice.filter((o) => o.kind !== '-').length;
    const first = slice[0]!;
    out.push(`@@ -${aLen ? first.a + 1 : first.a},${aLen} +${bLen ? first.b + 1 : first.b},${bLen} @@`);
    for (const o of slice) out.push(`${o.kind}${o.line}`);
  }
  if (!expected.endsWith('\n') && expected.length > 0) out.push('\\ No newline at end of expected');
  if (!actual.endsWith('\n') && actual.length > 0) out.push('\\ No newline at end of actual');
  return `${out.join('\n')}\n`;
}

/** 1-based number of the first line that differs between two texts, or undefined when equal. */
export function firstDifferingLine(expected: string, actual: string): number | undefined {
  if (expected === actual) return undefined;
  const a = splitLines(expected);
  const b = splitLines(actual);
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i + 1;
  return Math.max(a.length, b.length);
}
