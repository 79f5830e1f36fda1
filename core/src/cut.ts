// Every place that shortens text a user or a model reads (tool titles, tool output, line truncation,
// error quotes) cuts through here. A plain `slice` can end between the two halves of a surrogate pair:
// JSON.stringify then writes a lone `\ud83d` escape, which JSON.parse accepts but strict parsers (serde_json,
// so Rust ACP clients) reject, dropping the whole message. Budgets stay in UTF-16 code units (`.length`), as
// every caller counted before; a cut only ever moves earlier, to the start of the code point or grapheme
// cluster (emoji ZWJ sequence, flag, letter with combining marks) that would straddle it.

/** How far back (code units) the segmenter looks for the cluster that straddles a cut. */
const WINDOW = 64;

let graphemes: Intl.Segmenter | undefined;

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
/** Whether a regional indicator starts at `i`: flags are pairs of them, paired off from the run's start. */
const isRegional = (text: string, i: number) =>
  text.charCodeAt(i) === 0xd83c && text.charCodeAt(i + 1) >= 0xdde6 && text.charCodeAt(i + 1) <= 0xddff;

/**
 * The end of the longest prefix of `text` at most `max` code units long that ends on a grapheme cluster
 * boundary (and so never inside a surrogate pair). ASCII on both sides of the cut is taken as is, so ASCII
 * text cuts exactly where `slice(0, max)` does. A cluster longer than the segmenter's window is cut at a
 * code point instead.
 */
export function cutPoint(text: string, max: number): number {
  if (max >= text.length) return text.length;
  if (max <= 0) return 0;
  const before = text.charCodeAt(max - 1);
  const after = text.charCodeAt(max);
  if (before < 0x80 && after < 0x80) return max;
  const end = isHigh(before) && isLow(after) ? max - 1 : max;
  if (end === 0) return 0;
  let from = Math.max(0, end - WINDOW);
  if (isLow(text.charCodeAt(from)) && from > 0 && isHigh(text.charCodeAt(from - 1))) from--;
  // A window opening inside a run of regional indicators would pair them off by one.
  if (isRegional(text, from)) {
    let run = 0;
    while (from - 2 * (run + 1) >= 0 && isRegional(text, from - 2 * (run + 1))) run++;
    if (run % 2 === 1) from -= 2;
  }
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  // The two code units past the cut decide whether it is a boundary (grapheme rules look back, and one
  // code point ahead).
  const cluster = graphemes.segment(text.slice(from, end + 2)).containing(end - from - 1);
  if (!cluster || from + cluster.index + cluster.segment.length <= end) return end;
  const start = from + cluster.index;
  // A cluster opening the window may begin before it: fall back to the code point cut.
  return start > from || from === 0 ? start : end;
}

/** The longest prefix of `text` within `max` code units that ends on a grapheme boundary (see {@link cutPoint}). */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, cutPoint(text, max));
}
