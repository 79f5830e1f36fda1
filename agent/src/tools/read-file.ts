import { cutText } from '@acp-snapshot/core';
import * as z from 'zod';
import { jsonSchemaOf, parseArgs } from './args.js';
import { failure, success } from './outcome.js';
import { displayPath, pathLocations, resolvePath, titlePath } from './paths.js';
import { loadTextFile, splitLines } from './text-file.js';
import type { ToolDefinition } from './types.js';

const Args = z.object({
  path: z.string().min(1).describe('File to read, relative to the working directory or absolute.'),
  offset: z.number().int().min(1).optional().describe('1-based line number to start at (default 1).'),
  limit: z.number().int().min(1).optional().describe('Maximum number of lines to return.'),
});

/** Limits of read_file. */
export interface ReadFileOptions {
  /** Lines returned when the call gives no limit. */
  defaultLimit?: number;
  /** Characters kept of a single very long line. */
  maxLineChars?: number;
}

/**
 * read_file: returns lines prefixed with their right-aligned 1-based number and a tab (like `cat -n`),
 * so the model can cite lines and page with offset/limit. Output stays within the preview budget; a
 * trailing note says how to read on.
 */
export function createReadFile(opts: ReadFileOptions = {}): ToolDefinition {
  const defaultLimit = opts.defaultLimit ?? 2000;
  const maxLineChars = opts.maxLineChars ?? 2000;
  return {
    name: 'read_file',
    description:
      'Read a text file. Each output line is "<line number><TAB><text>"; the number and tab are not part of the file. ' +
      `Returns up to ${defaultLimit} lines; use offset and limit to page through long files.`,
    get parameters() {
      return jsonSchemaOf(Args);
    },
    kind: 'read',
    permission: 'none',
    title: (args) => `Read ${titlePath(args) ?? 'file'}`,
    locations: (args, cwd) => {
      const offset = (args as { offset?: unknown } | null)?.offset;
      return pathLocations(args, cwd, 'path', typeof offset === 'number' ? offset : undefined);
    },
    async run(raw, ctx) {
      const parsed = parseArgs('read_file', Args, raw);
      if (!parsed.ok) return parsed.outcome;
      const { path, offset = 1, limit = defaultLimit } = parsed.value;
      const abs = resolvePath(ctx.cwd, path);
      const shown = displayPath(ctx.cwd, abs);
      const loaded = await loadTextFile(ctx, abs, shown);
      if (!loaded.ok) return loaded.outcome;
      const lines = splitLines(loaded.text);
      const locations = [{ path: abs, line: offset }];
      if (lines.length === 0) return success(`(${shown} is empty)`, { locations });
      if (offset > lines.length) {
        return failure(
          `Error: offset ${offset} is past the end of ${shown}, which has ${lines.length} lines.`,
        );
      }
      const end = Math.min(lines.length, offset - 1 + limit);
      const width = String(end).length;
      const out: string[] = [];
      const more = (shownTo: number) =>
        `[showing lines ${offset}-${shownTo} of ${lines.length}; call read_file with offset=${shownTo + 1} to read on]`;
      // Room for that note, sized with the largest line numbers it could name.
      let used = more(end).length + 1;
      let last = offset - 1;
      for (let i = offset - 1; i < end; i++) {
        let text = lines[i] ?? '';
        if (text.length > maxLineChars)
          text = `${cutText(text, maxLineChars)} [line truncated: ${text.length} characters]`;
        const row = `${String(i + 1).padStart(width)}\t${text}`;
        // Keep the whole answer within the budget the model sees, but always show at least one line.
        if (out.length > 0 && used + row.length + 1 > ctx.previewBudget) break;
        out.push(row);
        used += row.length + 1;
        last = i + 1;
      }
      if (last < lines.length) {
        out.push(more(last));
      }
      return success(out.join('\n'), { locations });
    },
  };
}
