import { fileURLToPath } from 'node:url';
import type { Location } from '@playwright/test/reporter';

/** A stack frame's file, line and column: `at fn (FILE:L:C)` or `at FILE:L:C`, FILE a path or a file URL. */
const FRAME = /\(?((?:file:\/\/)?\/[^()]*):(\d+):(\d+)\)?$/;

/**
 * Where a test called into the harness: the first frame of `file` (the spec) in the current stack, so that a step of
 * the `acp` fixture opens the line of `acp.prompt(...)` in the report and the trace, not the harness bundle. It
 * also spares the step Playwright's own location, a 50-frame source-mapped stack: this one reads `frames` frames
 * (the spec's line is a few calls up, awaited calls included). Undefined when the spec is not among them.
 */
export function callerLocation(file: string, frames = 12): Location | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = frames;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  for (const line of stack.split('\n')) {
    const m = FRAME.exec(line);
    if (!m) continue;
    const path = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!;
    if (path === file) return { file, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}
