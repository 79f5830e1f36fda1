import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { cutText } from '@acp-snapshot/core';
import * as z from 'zod';
import { jsonSchemaOf, looseString, parseArgs } from './args.js';
import { failure, messageOf, textContent } from './outcome.js';
import { displayPath, pathKind, resolvePath } from './paths.js';
import { previewOf } from './spill.js';
import { isBinary, splitLines } from './text-file.js';
import type { ToolDefinition } from './types.js';
import { findFiles } from './walk.js';

const Args = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('JavaScript regular expression searched for in each line, e.g. "function\\s+main".'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('File or directory to search (default: the working directory).'),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe('Only search files matching this glob, e.g. "*.ts" (any depth) or "src/**/*.{js,ts}".'),
  ignore_case: z.boolean().optional().describe('Match letters case-insensitively.'),
});

/** Limits of grep. */
export interface GrepOptions {
  /** Matching lines reported before the search stops. */
  maxMatches?: number;
  /** Characters kept of a matching line. */
  maxLineChars?: number;
  /** Larger files are skipped (generated or data files, not source). */
  maxFileBytes?: number;
}

/** grep: regex search over text files; output lines `path:line:text`, sorted by path then line. */
export function createGrep(opts: GrepOptions = {}): ToolDefinition {
  const maxMatches = opts.maxMatches ?? 200;
  const maxLineChars = opts.maxLineChars ?? 300;
  const maxFileBytes = opts.maxFileBytes ?? 2_000_000;
  return {
    name: 'grep',
    description:
      'Search file contents with a regular expression (JavaScript syntax; case-sensitive unless ignore_case). ' +
      `Prints "path:line:text" sorted by path and line, at most ${maxMatches} matches. ` +
      'Binary files, node_modules and .git are skipped.',
    get parameters() {
      return jsonSchemaOf(Args);
    },
    kind: 'search',
    permission: 'none',
    title: (args) => {
      const where = looseString(args, 'path');
      return `Grep ${looseString(args, 'pattern') ?? ''}${where ? ` in ${where}` : ''}`.trimEnd();
    },
    locations: (args, cwd) => [{ path: resolvePath(cwd, looseString(args, 'path') ?? '.') }],
    async run(raw, ctx) {
      const parsed = parseArgs('grep', Args, raw);
      if (!parsed.ok) return parsed.outcome;
      const { pattern, path = '.', glob, ignore_case: ignoreCase = false } = parsed.value;
      let regex: RegExp;
      try {
        regex = new RegExp(pattern, ignoreCase ? 'i' : '');
      } catch (e) {
        return failure(`Error: pattern is not a valid regular expression: ${messageOf(e)}`);
      }
      const target = resolvePath(ctx.cwd, path);
      const shownTarget = displayPath(ctx.cwd, target);
      const kind = await pathKind(target);
      if (kind === 'missing') return failure(`Error: path not found: ${shownTarget} (the path argument).`);
      // A file target is searched alone; a directory target is walked, filtered by the glob.
      const root = kind === 'directory' ? target : dirname(target);
      let files: string[];
      try {
        files =
          kind === 'directory' ? await findFiles(root, globPattern(glob), ctx.signal) : [basename(target)];
      } catch (e) {
        return failure(`Error: cannot list files under ${shownTarget}: ${messageOf(e)}`);
      }
      const matches: string[] = [];
      let unreadable = 0;
      let capped = false;
      for (const rel of files) {
        if (ctx.signal.aborted) return failure('Cancelled: the search was stopped.');
        const abs = join(root, rel);
        let text: string;
        try {
          if ((await stat(abs)).size > maxFileBytes) continue;
          text = await ctx.fs.readText(abs);
        } catch {
          unreadable++;
          continue;
        }
        if (isBinary(text)) continue;
        const shown = displayPath(ctx.cwd, abs);
        const lines = splitLines(text);
        for (let i = 0; i < lines.length && !capped; i++) {
          const line = lines[i] ?? '';
          if (!regex.test(line)) continue;
          const cut = line.length > maxLineChars ? `${cutText(line, maxLineChars)} [line truncated]` : line;
          matches.push(`${shown}:${i + 1}:${cut}`);
          capped = matches.length >= maxMatches;
        }
        if (capped) break;
      }
      const footer: string[] = [];
      if (capped)
        footer.push(
          `[stopped after ${maxMatches} matches; narrow the pattern, path or glob to see the rest]`,
        );
      if (unreadable > 0) footer.push(`[${unreadable} file${unreadable === 1 ? '' : 's'} could not be read]`);
      const body =
        matches.length === 0
          ? `No matches for /${pattern}/ in ${shownTarget}${glob ? ` (files matching ${glob})` : ''}.`
          : `${matches.join('\n')}\n`;
      const preview = await previewOf(body, footer, ctx);
      return {
        status: 'completed',
        output: preview.output,
        content: [textContent(preview.output)],
        ...(preview.spill ? { spill: preview.spill } : {}),
        locations: [{ path: target }],
      };
    },
  };
}

/** A glob without a slash matches at any depth, as in ripgrep's --glob; none means every file. */
function globPattern(glob: string | undefined): string {
  if (glob === undefined) return '**/*';
  return glob.includes('/') ? glob : `**/${glob}`;
}
