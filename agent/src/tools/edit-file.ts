import * as z from 'zod';
import { jsonSchemaOf, parseArgs } from './args.js';
import { failure, messageOf, textContent } from './outcome.js';
import { displayPath, pathLocations, resolvePath, titlePath } from './paths.js';
import { lineAt, loadTextFile } from './text-file.js';
import type { ToolDefinition } from './types.js';

const Args = z.object({
  path: z.string().min(1).describe('File to edit, relative to the working directory or absolute.'),
  old_string: z.string().describe('Exact text to replace, including whitespace and indentation.'),
  new_string: z.string().describe('Text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one.'),
});

/** edit_file: exact-string replacement in an existing text file; reports a diff. */
export function createEditFile(): ToolDefinition {
  return {
    name: 'edit_file',
    description:
      'Replace an exact string in an existing file. old_string must occur exactly once unless replace_all is true; ' +
      'include enough surrounding lines to make it unique. Read the file first and copy the text exactly ' +
      '(without the line-number prefix that read_file adds).',
    get parameters() {
      return jsonSchemaOf(Args);
    },
    kind: 'edit',
    permission: 'edit',
    title: (args) => `Edit ${titlePath(args) ?? 'file'}`,
    locations: (args, cwd) => pathLocations(args, cwd),
    async run(raw, ctx) {
      const parsed = parseArgs('edit_file', Args, raw);
      if (!parsed.ok) return parsed.outcome;
      const {
        path,
        old_string: oldString,
        new_string: newString,
        replace_all: replaceAll = false,
      } = parsed.value;
      const abs = resolvePath(ctx.cwd, path);
      const shown = displayPath(ctx.cwd, abs);
      if (oldString === '') {
        return failure('Error: old_string is empty. To create a file or replace all of it, use write_file.');
      }
      if (oldString === newString) {
        return failure('Error: old_string and new_string are identical, so the edit would change nothing.');
      }
      const loaded = await loadTextFile(ctx, abs, shown);
      if (!loaded.ok) return loaded.outcome;
      const oldText = loaded.text;
      const positions = occurrences(oldText, oldString);
      if (positions.length === 0) {
        return failure(
          `Error: old_string was not found in ${shown}. Read the file again and copy the exact text, ` +
            'including whitespace and indentation.',
        );
      }
      const lines = positions.map((p) => lineAt(oldText, p));
      if (positions.length > 1 && !replaceAll) {
        return failure(
          `Error: old_string occurs ${positions.length} times in ${shown} (lines ${lines.join(', ')}). ` +
            'Add surrounding lines to old_string so it matches exactly one place, or set replace_all to true ' +
            'to replace every occurrence.',
        );
      }
      // split/join rather than String.replace: `$&`-style patterns in new_string must stay literal.
      const newText = oldText.split(oldString).join(newString);
      try {
        await ctx.fs.writeText(abs, newText);
      } catch (e) {
        return failure(`Error: cannot write ${shown}: ${messageOf(e)}`);
      }
      const where = lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.join(', ')}`;
      const text = `Edited ${shown}: replaced ${positions.length} occurrence${positions.length === 1 ? '' : 's'} (${where}).`;
      return {
        status: 'completed',
        output: text,
        content: [textContent(text), { type: 'diff', path: abs, oldText, newText }],
        locations: [{ path: abs, line: lines[0] ?? 1 }],
      };
    },
  };
}

/** Start indexes of the non-overlapping occurrences of needle (the ones split/join replaces). */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length))
    found.push(i);
  return found;
}
