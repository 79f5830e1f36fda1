import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ToolCallLocation } from '@agentclientprotocol/sdk';
import { looseString } from './args.js';

/** Resolves a tool path argument: absolute paths stay, relative ones are taken from the session cwd. */
export function resolvePath(cwd: string, path: string): string {
  return resolve(cwd, path);
}

/**
 * How a path is shown to the model and in titles: relative to the cwd when inside it (short, and stable
 * across machines), else absolute.
 */
export function displayPath(cwd: string, absPath: string): string {
  const rel = relative(cwd, absPath);
  if (rel === '') return '.';
  if (rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return absPath;
  return rel.split(sep).join('/');
}

/** The display path of a possibly invalid `path` argument, for titles. */
export function titlePath(args: unknown, key = 'path'): string | undefined {
  return looseString(args, key);
}

/** ACP locations from a possibly invalid `path` argument (absolute, as ACP wants). */
export function pathLocations(args: unknown, cwd: string, key = 'path', line?: number): ToolCallLocation[] {
  const p = looseString(args, key);
  if (p === undefined) return [];
  return [{ path: resolvePath(cwd, p), ...(line !== undefined ? { line } : {}) }];
}

/** What is at a path on local disk: a file, a directory, nothing, or something else (socket, fifo). */
export type PathKind = 'file' | 'directory' | 'missing' | 'other';

/** Classifies a path on local disk (following symlinks). */
export async function pathKind(absPath: string): Promise<PathKind> {
  try {
    const s = await stat(absPath);
    if (s.isFile()) return 'file';
    if (s.isDirectory()) return 'directory';
    return 'other';
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw e;
  }
}
