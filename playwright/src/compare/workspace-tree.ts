/**
 * Reading a directory tree for the workspace comparison: every entry by its relative POSIX path,
 * without following symlinks or opening special files, and bounded, so an agent that leaves a huge or
 * deeply nested workspace fails with the file and the limit instead of hanging the test.
 */
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** One entry of a tree. Directories are kept so that empty ones can be compared. */
export type TreeEntry =
  | { kind: 'file'; bytes: Buffer; executable: boolean }
  | { kind: 'symlink'; target: string }
  | { kind: 'directory'; empty: boolean }
  | { kind: 'other'; type: string };

/** Relative POSIX path (`src/a.ts`) -> entry, in sorted traversal order. */
export type Tree = Map<string, TreeEntry>;

/** What one capture may read. */
export interface TreeLimits {
  /** Entries (files, directories, links) in the whole tree. */
  maxEntries: number;
  /** Directory levels below the tree's root. */
  maxDepth: number;
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Bytes of all files together. */
  maxTotalBytes: number;
}

/** Generous for a scenario's workspace (a few files), small enough to fail in well under a second. */
export const TREE_LIMITS: TreeLimits = {
  maxEntries: 10_000,
  maxDepth: 32,
  maxFileBytes: 8 * 2 ** 20,
  maxTotalBytes: 64 * 2 ** 20,
};

/** A tree over one of the capture's limits; the message names the file and the limit. */
export class WorkspaceLimitError extends Error {
  override name = 'WorkspaceLimitError';
}

const mib = (n: number) => `${(n / 2 ** 20).toFixed(1).replace(/\.0$/, '')} MiB`;

const NEXT =
  "a scenario's workspace must stay small enough to review: make the scenario (or the agent) leave less behind";

function typeOf(st: Awaited<ReturnType<typeof lstat>>): string {
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isBlockDevice()) return 'block device';
  if (st.isCharacterDevice()) return 'character device';
  return 'unknown';
}

/**
 * Reads `dir` (absent: an empty tree). Throws {@link WorkspaceLimitError} naming the file when the tree
 * passes one of `limits`; file sizes are checked before a file is read.
 */
export async function readTree(dir: string, limits: TreeLimits = TREE_LIMITS): Promise<Tree> {
  const tree: Tree = new Map();
  const top = await lstat(dir).catch(() => undefined);
  if (!top?.isDirectory()) return tree;
  let total = 0;
  // Depth-first, entries sorted, so the order (and the first file over a limit) is deterministic.
  const walk = async (abs: string, rel: string, depth: number): Promise<boolean> => {
    const names = (await readdir(abs)).sort();
    for (const name of names) {
      const childAbs = join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      if (tree.size >= limits.maxEntries) {
        throw new WorkspaceLimitError(
          `${childAbs}: the workspace holds more than ${limits.maxEntries} entries (files, directories and links), the capture's limit; ${NEXT}`,
        );
      }
      const st = await lstat(childAbs);
      if (st.isDirectory()) {
        if (depth + 1 > limits.maxDepth) {
          throw new WorkspaceLimitError(
            `${childAbs}: nested ${depth + 1} directories deep, over the capture's limit of ${limits.maxDepth}; ${NEXT}`,
          );
        }
        const entry: TreeEntry = { kind: 'directory', empty: true };
        tree.set(childRel, entry);
        entry.empty = !(await walk(childAbs, childRel, depth + 1));
      } else if (st.isSymbolicLink()) {
        tree.set(childRel, { kind: 'symlink', target: await readlink(childAbs) });
      } else if (st.isFile()) {
        if (st.size > limits.maxFileBytes) {
          throw new WorkspaceLimitError(
            `${childAbs}: ${mib(st.size)}, over the capture's limit of ${mib(limits.maxFileBytes)} per file; ${NEXT}`,
          );
        }
        total += st.size;
        if (total > limits.maxTotalBytes) {
          throw new WorkspaceLimitError(
            `${childAbs}: the workspace's files pass ${mib(limits.maxTotalBytes)} in total here, the capture's limit; ${NEXT}`,
          );
        }
        tree.set(childRel, {
          kind: 'file',
          bytes: await readFile(childAbs),
          executable: (st.mode & 0o111) !== 0,
        });
      } else {
        tree.set(childRel, { kind: 'other', type: typeOf(st) });
      }
    }
    return names.length > 0;
  };
  await walk(dir, '', 0);
  return tree;
}
