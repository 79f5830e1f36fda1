import { type BashOptions, createBash } from './bash.js';
import { createEditFile } from './edit-file.js';
import { createGlob, type GlobToolOptions } from './glob.js';
import { createGrep, type GrepOptions } from './grep.js';
import { createReadFile, type ReadFileOptions } from './read-file.js';
import type { ToolDefinition } from './types.js';
import { createWriteFile } from './write-file.js';

export type { FileAccess, ToolContext, ToolDefinition, ToolOutcome } from './types.js';

/** Per-tool limits; every field has a documented default. */
export interface CreateToolsOptions {
  read_file?: ReadFileOptions;
  glob?: GlobToolOptions;
  grep?: GrepOptions;
  bash?: BashOptions;
}

/** The agent's tools, in the (stable) order their schemas are sent to the model. */
export function createTools(opts: CreateToolsOptions = {}): ToolDefinition[] {
  return [
    createReadFile(opts.read_file),
    createWriteFile(),
    createEditFile(),
    createGlob(opts.glob),
    createGrep(opts.grep),
    createBash(opts.bash),
  ];
}
