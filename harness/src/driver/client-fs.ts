/**
 * The client's side of ACP's fs methods, as the harness serves them to an agent: `fs/read_text_file`
 * (with `line`/`limit`) and `fs/write_text_file`, for absolute paths inside one root only, each noted
 * for the report. The scenario driver and the `acp` fixture's client both serve them through this.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';

/** Registers the fs handlers the capabilities offer on `app`; `note` gets one line per request. */
export function serveClientFs(
  app: acp.ClientApp,
  root: string,
  caps: acp.ClientCapabilities['fs'] | undefined,
  note: (line: string) => void,
): void {
  const inRoot = (path: string): string => {
    const abs = resolve(path);
    const rel = relative(root, abs);
    if (!isAbsolute(path) || rel.startsWith('..') || isAbsolute(rel))
      throw acp.RequestError.invalidParams({ path }, `path is outside the session workspace: ${path}`);
    return abs;
  };
  const shown = (path: string) => relative(root, path) || path;
  if (caps?.readTextFile) {
    app.onRequest('fs/read_text_file', async ({ params }) => {
      note(`fs/read_text_file ${shown(params.path)}`);
      const text = await readFile(inRoot(params.path), 'utf8');
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
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, params.content);
      return {};
    });
  }
}
