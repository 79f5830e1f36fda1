/**
 * The client's side of ACP's fs methods, as the harness serves them to an agent: `fs/read_text_file`
 * (with `line`/`limit`) and `fs/write_text_file`, for absolute paths inside one root only, each noted
 * for the report. The scenario driver and the `acp` fixture's client both serve them through this.
 *
 * A failure answers the way an editor does, because agents act on the code: a missing file is ACP's
 * "resource not found" (-32002; agents read before they write and take it as "create it"), a bad path
 * (relative, outside the root, a directory, too large) is -32602, and only what the agent cannot fix
 * (permission denied, an I/O failure) is -32603, each with a message naming the path.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';

/** The largest file `fs/read_text_file` serves (an editor refuses to open a bigger one as text). */
export const MAX_READ_BYTES = 10 * 1024 * 1024;

export interface ClientFsOptions {
  /** The largest file read serves, in bytes (default MAX_READ_BYTES). */
  maxReadBytes?: number;
}

/** Registers the fs handlers the capabilities offer on `app`; `note` gets one line per request. */
export function serveClientFs(
  app: acp.ClientApp,
  root: string,
  caps: acp.ClientCapabilities['fs'] | undefined,
  note: (line: string) => void,
  options: ClientFsOptions = {},
): void {
  const maxReadBytes = options.maxReadBytes ?? MAX_READ_BYTES;
  const inRoot = (path: string): string => {
    if (!isAbsolute(path)) throw acp.RequestError.invalidParams({ path }, `path must be absolute: ${path}`);
    const abs = resolve(path);
    const rel = relative(root, abs);
    if (rel.startsWith('..') || isAbsolute(rel))
      throw acp.RequestError.invalidParams({ path }, `path is outside the session workspace: ${path}`);
    return abs;
  };
  const shown = (path: string) => relative(root, path) || path;
  if (caps?.readTextFile) {
    app.onRequest('fs/read_text_file', async ({ params }) => {
      note(`fs/read_text_file ${shown(params.path)}`);
      const file = inRoot(params.path);
      const text = await fsCall('read', params.path, async () => {
        const info = await stat(file);
        if (info.isDirectory()) throw isADirectory(params.path);
        if (info.size > maxReadBytes)
          throw acp.RequestError.invalidParams(
            { path: params.path, bytes: info.size, maxBytes: maxReadBytes },
            `file is too large to read as text (${info.size} bytes, the limit is ${maxReadBytes}): ${params.path}`,
          );
        return readFile(file, 'utf8');
      });
      if (params.line == null && params.limit == null) return { content: text };
      const all = text.split('\n');
      const start = Math.max(0, (params.line ?? 1) - 1);
      const end = params.limit == null ? all.length : start + params.limit;
      return { content: all.slice(start, end).join('\n') };
    });
  }
  if (caps?.writeTextFile) {
    app.onRequest('fs/write_text_file', async ({ params }) => {
      note(`fs/write_text_file ${shown(params.path)}`);
      const file = inRoot(params.path);
      await fsCall('write', params.path, async () => {
        const parent = await stat(dirname(file)).catch(() => undefined);
        if (parent && !parent.isDirectory()) throw parentIsAFile(params.path);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, params.content);
      });
      return {};
    });
  }
}

const isADirectory = (path: string) =>
  acp.RequestError.invalidParams({ path }, `path is a directory, not a file: ${path}`);

const parentIsAFile = (path: string) =>
  acp.RequestError.invalidParams({ path }, `a parent of this path is a file, not a directory: ${path}`);

/** Runs one fs operation on `path`, answering its failure as an editor would (see the module comment). */
async function fsCall<T>(kind: 'read' | 'write', path: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    throw fsError(kind, path, e);
  }
}

function fsError(kind: 'read' | 'write', path: string, e: unknown): unknown {
  if (e instanceof acp.RequestError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return acp.RequestError.resourceNotFound(path);
    case 'ENOTDIR':
      // A parent is a file: such a file cannot exist (read), nor be created (write).
      return kind === 'read' ? acp.RequestError.resourceNotFound(path) : parentIsAFile(path);
    case 'EISDIR':
      return isADirectory(path);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return acp.RequestError.internalError({ path, code }, `permission denied: ${path}`);
    default:
      return acp.RequestError.internalError({ path, code }, (e as Error).message ?? String(e));
  }
}
