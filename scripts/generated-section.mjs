// A part of a Markdown file that a script generates, between two marker comments: written in place, or checked
// to be what the script gives now (`--check`). The README's conformance table and docs/agents.md's
// compatibility table are both kept this way.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A table cell: no pipe or line break of the text breaks the row. */
export function cell(text) {
  return String(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/**
 * `text` with the part between `start` and `end` replaced by `body`; throws naming `file` when a marker is
 * missing.
 */
export function withSection(text, { start, end, file }, body) {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from)
    throw new Error(`${file}: the markers ${start} and ${end} are missing; put them where the table goes`);
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}

/**
 * Rewrites the section of `path` with `body`, or with `check` only says whether it is current: returns 0 when
 * written or current, 1 (after printing what to run) when stale.
 */
export function writeOrCheck(path, markers, body, { check, what, command }) {
  const file = relative(ROOT, path);
  const text = readFileSync(path, 'utf8');
  const next = withSection(text, { ...markers, file }, body);
  if (check) {
    if (next === text) return 0;
    console.error(`${file}: ${what} is not what the sources give; rewrite it: ${command}`);
    return 1;
  }
  if (next !== text) writeFileSync(path, next);
  return 0;
}
