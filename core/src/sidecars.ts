/**
 * Sidecars: bulk (a system prompt, tool schemas, a request body) kept beside a log in a file named by the
 * sha256 of its content, so identical bulk is stored once and an edit by hand is detected. The session log
 * and model-http's exchange log both name their sidecars by this rule.
 */
import { createHash } from 'node:crypto';

/** sha256 hex of a sidecar's content: its name (`<sha256>.json`). */
export function sidecarHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Where sidecars come from: a directory of `<sha256>.json` files, or a map sha256 -> content. */
export type SidecarSource = string | Record<string, string>;
