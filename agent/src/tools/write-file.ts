import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { jsonSchemaOf, parseArgs } from './args.js';
import { failure, messageOf, textContent } from './outcome.js';
import { displayPath, pathKind, pathLocations, resolvePath, titlePath } from './paths.js';
import { isBinary, splitLines } from './text-file.js';
import type { ToolDefinition } from './types.js';

const Args = z.object({
  path: z.string().min(1).describe('File to write, relative to the working directory or absolute.'),
  content: z.string().describe('The complete new content of the file.'),
});

/** write_file: creates or overwrites a whole file (parent directories included); reports a diff. */
export function createWriteFile(): ToolDefinition {
  return {
    name: 'write_file',
    description:
      'Create a file or replace its whole content. Missing parent directories are created. ' +
      'To change part of an existing file, prefer edit_file.',
    get parameters() {
      return jsonSchemaOf(Args);
    },
    kind: 'edit',
    permission: 'edit',
    title: (args) => `Write ${titlePath(args) ?? 'file'}`,
    locations: (args, cwd) => pathLocations(args, cwd),
    async run(raw, ctx) {
      const parsed = parseArgs('write_file', Args, raw);
      if (!parsed.ok) return parsed.outcome;
      const { path, content } = parsed.value;
      const abs = resolvePath(ctx.cwd, path);
      const shown = displayPath(ctx.cwd, abs);
      const kind = await pathKind(abs);
      if (kind === 'directory')
        return failure(`Error: ${shown} is a directory; give the path of a file inside it.`);
      if (kind === 'other') return failure(`Error: ${shown} exists and is not a regular file.`);
      let oldText: string | null = null;
      if (kind === 'file') {
        try {
          oldText = await ctx.fs.readText(abs);
        } catch (e) {
          return failure(`Error: cannot read the current content of ${shown}: ${messageOf(e)}`);
        }
        // A binary file would show as garbage in the diff; say what is being replaced instead.
        if (isBinary(oldText)) oldText = '(binary content)\n';
      }
      try {
        // Directories are created on local disk: the client's fs/write_text_file need not create them.
        await mkdir(dirname(abs), { recursive: true });
        await ctx.fs.writeText(abs, content);
      } catch (e) {
        return failure(`Error: cannot write ${shown}: ${messageOf(e)}`);
      }
      const lines = splitLines(content).length;
      const text =
        oldText === null
          ? `Created ${shown} (${lines} lines).`
          : oldText === content
            ? `${shown} already had this content; nothing changed.`
            : `Overwrote ${shown} (${lines} lines, previously ${splitLines(oldText).length}).`;
      return {
        status: 'completed',
        output: text,
        content: [textContent(text), { type: 'diff', path: abs, oldText, newText: content }],
        locations: [{ path: abs }],
      };
    },
  };
}
