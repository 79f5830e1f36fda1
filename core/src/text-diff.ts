// Readable differences between a recorded and a live text (a system prompt, a tool schema): the first
// hunk of a line diff, with the changed words of each changed line marked wdiff-style. jsdiff computes them.
import { diffWordsWithSpace, structuredPatch } from 'diff';

/** Lines of context around a change. */
const CONTEXT = 2;
/** Longest line shown; a longer one is cut around its first change. */
const LINE_MAX = 160;

/** `[-old-]{+new+}` marks of the words that differ between two lines. */
export function markedWords(recorded: string, live: string): string {
  return diffWordsWithSpace(recorded, live)
    .map((p) => (p.added ? `{+${p.value}+}` : p.removed ? `[-${p.value}-]` : p.value))
    .join('');
}

/** `line` unchanged when short, else a window around its first `[-` or `{+` mark. */
export function clipAround(line: string): string {
  if (line.length <= LINE_MAX) return line;
  const at = Math.max(0, line.search(/\[-|\{\+/) - 40);
  const cut = line.slice(at, at + LINE_MAX);
  return `${at > 0 ? '…' : ''}${cut}${at + LINE_MAX < line.length ? '…' : ''}`;
}

/**
 * The first hunk of the line diff of `recorded` and `live`, indented, with a `~` line under each
 * changed line pair marking the changed words; `(N more hunks)` when there are more. '' when equal.
 */
export function firstHunk(recorded: string, live: string, indent = '    '): string {
  const patch = structuredPatch('recorded', 'live', recorded, live, '', '', { context: CONTEXT });
  const [hunk, ...rest] = patch.hunks;
  if (!hunk) return '';
  const out = [`${indent}@@ recorded line ${hunk.oldStart}, live line ${hunk.newStart} @@`];
  // jsdiff's "\\ No newline at end of file" markers say nothing a reader needs here.
  const lines = hunk.lines.filter((l) => !l.startsWith('\\'));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    out.push(`${indent}${clipAround(line)}`);
    // A removed line directly followed by an added one: show what changed inside it.
    const next = lines[i + 1];
    if (line.startsWith('-') && next?.startsWith('+') && !lines[i + 2]?.startsWith('+')) {
      out.push(`${indent}${clipAround(`+${next.slice(1)}`)}`);
      out.push(`${indent}~${clipAround(markedWords(line.slice(1), next.slice(1)))}`);
      i++;
    }
  }
  if (rest.length > 0) out.push(`${indent}(${rest.length} more hunk${rest.length === 1 ? '' : 's'})`);
  return out.join('\n');
}

/** The whole unified diff (for stderr and attachments). */
export function unifiedDiff(recorded: string, live: string, what: string): string {
  const patch = structuredPatch(`recorded ${what}`, `live ${what}`, recorded, live, '', '', { context: 3 });
  const out = [`--- recorded ${what}`, `+++ live ${what}`];
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines);
  }
  return out.join('\n');
}
