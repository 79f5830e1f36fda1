// Request routing: a client's preflight, an unknown route, a body that is no JSON object, or the wire format
// the path names, whose request the script answers; an error of the emulator's own is a 500, never a hang.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Answerer, answer } from './answer.js';
import { defaultFormat, formatFor, ROUTE_LIST } from './format.js';
import type { RequestLog } from './request-log.js';
import { sendJson } from './response-writer.js';

/** Anthropic's clients check the base URL with a HEAD before the first call. */
const PREFLIGHT_PATHS = new Set(['/', '/v1']);

/** Serves one request: logs it, routes it, and answers it. */
export function serveRequest(
  req: IncomingMessage,
  res: ServerResponse,
  requests: RequestLog,
  answerer: Answerer,
): void {
  route(req, res, requests, answerer).catch((e: unknown) => {
    answerer.log(`emulator: internal error: ${(e as Error).stack ?? String(e)}`);
    if (!res.headersSent)
      sendJson(
        res,
        500,
        defaultFormat.errorBody(500, { message: `emulator internal error: ${(e as Error).message}` }),
      );
    else res.destroy();
  });
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  requests: RequestLog,
  answerer: Answerer,
): Promise<void> {
  const { log } = answerer;
  const { entry, url, text, body } = await requests.receive(req, res);
  const path = url.pathname;
  if (entry.method === 'HEAD' && PREFLIGHT_PATHS.has(path)) {
    entry.served = 'preflight';
    log(`emulator: #${entry.index} HEAD ${path} -> 200`);
    res.writeHead(200).end();
    return;
  }
  const fmt = entry.method === 'POST' ? formatFor(path) : undefined;
  if (!fmt) {
    entry.served = 'not_found';
    log(`emulator: #${entry.index} ${entry.method} ${path} -> 404`);
    const message = `emulator: no route ${entry.method} ${path}; it serves ${ROUTE_LIST}`;
    return sendJson(res, 404, defaultFormat.errorBody(404, { message }));
  }
  entry.format = fmt.name;
  if (!body) {
    entry.served = 'bad_json';
    log(`emulator: #${entry.index} POST ${path} -> 400 (body is not a JSON object)`);
    return sendJson(
      res,
      400,
      fmt.errorBody(400, { message: 'Invalid Format: the request body is not a JSON object' }),
    );
  }
  return answer(answerer, res, fmt, entry, body, { path, text, query: url.searchParams });
}
