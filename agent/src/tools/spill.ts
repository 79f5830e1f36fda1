import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cutText } from '@acp-snapshot/core';
import type { ToolContext, ToolOutcome } from './types.js';

/** What the model sees of a long output, and where the whole of it went. */
export interface Preview {
  output: string;
  spill?: NonNullable<ToolOutcome['spill']>;
}

/**
 * Fits `body` plus its `footer` lines (exit status and the like, always shown) into ctx.previewBudget
 * characters. When it does not fit, the whole body is written to `<spillRoot>/<newId('spill')>.txt` and the
 * preview is the head of the body, the footer, and a last line naming that file and its size so the model
 * can read the rest back with read_file.
 */
export async function previewOf(body: string, footer: string[], ctx: ToolContext): Promise<Preview> {
  const tail = footer.join('\n');
  const whole = joinParts(body, tail);
  if (whole.length <= ctx.previewBudget) return { output: whole };
  const path = join(ctx.spillRoot, `${ctx.newId('spill')}.txt`);
  await mkdir(ctx.spillRoot, { recursive: true });
  await writeFile(path, body, 'utf8');
  const bytes = Buffer.byteLength(body, 'utf8');
  const notice =
    `[output truncated: the full output (${bytes} bytes) is in ${path}; ` +
    'read it with read_file, using offset and limit for long files]';
  const room = ctx.previewBudget - notice.length - tail.length - 2;
  const head = headOf(body, Math.max(0, room));
  return { output: joinParts(joinParts(head, tail), notice), spill: { path, bytes } };
}

function joinParts(a: string, b: string): string {
  if (b === '') return a;
  if (a === '') return b;
  return a.endsWith('\n') ? `${a}${b}` : `${a}\n${b}`;
}

/**
 * At most `max` characters from the start, cut at a line end when one is reasonably close, else before
 * the character (emoji, letter with its marks) that straddles the cut.
 */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = cutText(text, max);
  const nl = head.lastIndexOf('\n');
  return nl >= max / 2 ? head.slice(0, nl + 1) : head;
}
