import { join } from 'node:path';
import * as z from 'zod';
import { jsonSchemaOf, looseString, parseArgs } from './args.js';
import { failure, messageOf, success } from './outcome.js';
import { displayPath, pathKind, resolvePath } from './paths.js';
import type { ToolDefinition } from './types.js';
import { findFiles } from './walk.js';

const Args = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Glob pattern, e.g. "**/*.ts", "src/*.{js,json}", "*.md". Use "**/*" to list every file.'),
  path: z.string().min(1).optional().describe('Directory to search in (default: the working directory).'),
});

/** Limits of glob. */
export interface GlobToolOptions {
  /** Paths listed before the output says the rest were left out. */
  maxResults?: number;
}

/** glob: lists files matching a pattern, sorted, relative to the working directory. */
export function createGlob(opts: GlobToolOptions = {}): ToolDefinition {
  const maxResults = opts.maxResults ?? 500;
  return {
    name: 'glob',
    description:
      'List files matching a glob pattern (supports **, *, ?, [abc] and {a,b}), sorted by path. ' +
      'Dotfiles are included; node_modules and .git are skipped. Paths are relative to the working directory.',
    get parameters() {
      return jsonSchemaOf(Args);
    },
    kind: 'search',
    permission: 'none',
    title: (args) => {
      const where = looseString(args, 'path');
      return `Find ${looseString(args, 'pattern') ?? 'files'}${where ? ` in ${where}` : ''}`;
    },
    locations: (args, cwd) => [{ path: resolvePath(cwd, looseString(args, 'path') ?? '.') }],
    async run(raw, ctx) {
      const parsed = parseArgs('glob', Args, raw);
      if (!parsed.ok) return parsed.outcome;
      const { pattern, path = '.' } = parsed.value;
      const root = resolvePath(ctx.cwd, path);
      const shownRoot = displayPath(ctx.cwd, root);
      const kind = await pathKind(root);
      if (kind === 'missing') return failure(`Error: directory not found: ${shownRoot} (the path argument).`);
      if (kind !== 'directory')
        return failure(`Error: ${shownRoot} is not a directory; path must name a directory.`);
      let files: string[];
      try {
        files = await findFiles(root, pattern, ctx.signal);
      } catch (e) {
        return failure(`Error: glob over ${shownRoot} failed: ${messageOf(e)}`);
      }
      const locations = [{ path: root }];
      if (files.length === 0) return success(`No files match "${pattern}" in ${shownRoot}.`, { locations });
      const shown = files.slice(0, maxResults).map((f) => displayPath(ctx.cwd, join(root, f)));
      if (files.length > maxResults) {
        shown.push(
          `[${files.length - maxResults} more of ${files.length} files not shown; use a narrower pattern or path]`,
        );
      }
      return success(shown.join('\n'), { locations });
    },
  };
}
