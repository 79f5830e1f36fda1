// Writing the emulator's answers: whole JSON bodies, and streams of server-sent events frame by frame (each
// write awaited, so a failure injected after N frames finds exactly N on the wire).
import type { ServerResponse } from 'node:http';
import type { ScriptChunking, ScriptReply } from './script.js';
import type { Frame, ResponseIdentity } from './wire.js';
import type { FormatAdapter } from './wire-format.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, JSON.stringify(body), headers);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Writes `text`; resolves once it is handed to the socket (at once when the client has gone). */
export function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(text, () => resolve());
  });
}

export async function writeFrames(res: ServerResponse, fs: Frame[]): Promise<void> {
  for (const f of fs) await write(res, f.text);
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

/** A scripted reply in `fmt`: one JSON body, or (when the request asks for a stream) its frames and end. */
export async function serveReply(
  res: ServerResponse,
  fmt: FormatAdapter,
  scripted: { reply: ScriptReply; chunking?: ScriptChunking | undefined },
  who: ResponseIdentity,
  req: { stream: boolean; path: string },
): Promise<void> {
  if (!req.stream) return sendText(res, 200, fmt.complete(scripted.reply, who, req.path));
  const all = fmt.streamFrames(scripted.reply, scripted.chunking, who);
  startSse(res);
  await writeFrames(res, all);
  if (fmt.streamEnd) await write(res, fmt.streamEnd);
  res.end();
}
