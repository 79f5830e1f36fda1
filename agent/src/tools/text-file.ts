import { failure, messageOf } from './outcome.js';
import { pathKind } from './paths.js';
import type { ToolContext, ToolOutcome } from './types.js';

/** A text file's content, or the failed outcome explaining why it cannot be used. */
export type LoadedText = { ok: true; text: string } | { ok: false; outcome: ToolOutcome };

/**
 * Loads an existing text file through ctx.fs (so a client serving fs/* can answer with unsaved buffers).
 * The file's kind is checked on local disk first so a missing file or a directory gets a precise message.
 */
export async function loadTextFile(ctx: ToolContext, absPath: string, shown: string): Promise<LoadedText> {
  const kind = await pathKind(absPath);
  if (kind === 'missing') {
    return {
      ok: false,
      outcome: failure(`Error: file not found: ${shown}. Use glob to find the right path.`),
    };
  }
  if (kind === 'directory') {
    return {
      ok: false,
      outcome: failure(
        `Error: ${shown} is a directory, not a file. Use glob with path "${shown}" to list its files.`,
      ),
    };
  }
  if (kind === 'other') return { ok: false, outcome: failure(`Error: ${shown} is not a regular file.`) };
  let text: string;
  try {
    text = await ctx.fs.readText(absPath);
  } catch (e) {
    return { ok: false, outcome: failure(`Error: cannot read ${shown}: ${messageOf(e)}`) };
  }
  if (isBinary(text)) {
    return {
      ok: false,
      outcome: failure(
        `Error: ${shown} is a binary file (it contains NUL bytes); only text files can be read or edited.`,
      ),
    };
  }
  return { ok: true, text };
}

/** Same heuristic as git and grep: a NUL byte near the start means binary. */
export function isBinary(text: string): boolean {
  return text.slice(0, 8192).includes('\u0000');
}

/** Lines of a text, without the empty element a final newline would add. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The 1-based line number at a character offset. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
