// The model emulator: an OpenAI-compatible POST /chat/completions server on 127.0.0.1 that serves a
// script positionally (response i answers request i) in DeepSeek's stream shape, and injects failures.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  loadScript,
  parseScript,
  type Script,
  type ScriptChunking,
  type ScriptEntry,
  type ScriptFail,
  type ScriptReply,
} from './script.js';
import { applyVars, resolveVars, usedVars, VarNotFound } from './template.js';
import {
  completionObject,
  dataLine,
  errorBody,
  type Frame,
  frames,
  framesBefore,
  type ResponseIdentity,
  streamChunks,
} from './wire.js';

/** How to start an emulator: a script value (validated here) or a script file. */
export interface EmulatorOptions {
  script?: Script | unknown;
  scriptPath?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Receives one line per request served (the CLI prints them to stderr). */
  log?: (line: string) => void;
  /**
   * Answers each chat request by its content instead of by position (a prompt-aware stand-in, e.g. the
   * conformance kit's, for agents whose background calls make positions unpredictable). Undefined: the
   * request is answered as if the script were exhausted.
   */
  respond?: (body: Record<string, unknown>, request: LoggedRequest) => ScriptEntry | undefined;
}

/** How a request was answered. */
export type Served =
  | 'reply'
  | `fail:${ScriptFail['kind']}`
  | 'exhausted'
  | 'not_found'
  | 'bad_json'
  | 'script_var';

/** One request the emulator received, as tests assert on it. */
export interface LoggedRequest {
  /** Arrival order, from 0 (every request, including ones that consumed no script entry). */
  index: number;
  method: string;
  path: string;
  /** Lower-case header names; the authorization value is replaced by `<scheme> [redacted]`. */
  headers: Record<string, string>;
  /** The parsed JSON body (undefined when the body was not JSON; see bodyText). */
  body: unknown;
  bodyText?: string;
  /** The script entry that answered it, if any. */
  entry?: number;
  served: Served;
  /** How the connection ended: response finished, client went away first, or the emulator cut it. */
  closed?: 'finished' | 'client' | 'server';
}

/** A running emulator. */
export interface Emulator {
  /** Base URL for an OpenAI SDK `baseURL` (`/chat/completions` and `/v1/chat/completions` both work). */
  url: string;
  port: number;
  /** Every request received, in order (live array). */
  requests: LoggedRequest[];
  /** Script entries consumed so far. */
  readonly served: number;
  /** Resolves once `n` requests have arrived; rejects after `timeoutMs` (default 10 s) naming what was seen. */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  /** Resolves when `predicate` holds (checked on every request arrival and connection close). */
  waitFor(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Stops listening and drops every open connection (hung responses included). */
  close(): Promise<void>;
}

/** `created` of response 0 (2025-01-01T00:00:00Z); response n gets BASE + n. */
const CREATED_BASE = 1735689600;
const CHAT_PATHS = new Set(['/chat/completions', '/v1/chat/completions']);
/** What a mid-stream failure streams first when its script entry gives no reply. */
const DEFAULT_PREFIX: ScriptReply = { text: 'Partial answer before the failure.' };

function redactHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.join(', ') : v;
    out[k] = k === 'authorization' ? `${value.split(' ')[0]} [redacted]` : value;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(text, () => resolve());
  });
}

async function writeFrames(res: ServerResponse, fs: Frame[]): Promise<void> {
  for (const f of fs) await write(res, f.text);
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
}

function promptChars(body: Record<string, unknown>): number {
  return JSON.stringify(body.messages ?? []).length + JSON.stringify(body.tools ?? []).length;
}

/** Starts an emulator on 127.0.0.1. A bad script rejects with a ScriptError naming the file and path. */
export async function startEmulator(opts: EmulatorOptions): Promise<Emulator> {
  const script: Script = opts.scriptPath ? loadScript(opts.scriptPath) : parseScript(opts.script);
  const scriptName = opts.scriptPath ?? '<inline script>';
  const requests: LoggedRequest[] = [];
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const w of [...waiters]) w();
  };
  let nextEntry = 0;
  let toolCallCounter = 0;
  const log = opts.log ?? (() => {});

  const identity = (n: number, body: Record<string, unknown>): ResponseIdentity => ({
    id: `chatcmpl-emu-${n}`,
    created: CREATED_BASE + n,
    model: typeof body.model === 'string' ? body.model : 'emulator',
    nextToolCallId: () => `call_${toolCallCounter++}`,
    promptChars: promptChars(body),
  });

  async function serveReply(
    res: ServerResponse,
    reply: ScriptReply,
    chunking: ScriptChunking | undefined,
    who: ResponseIdentity,
    stream: boolean,
  ): Promise<void> {
    if (!stream) return sendJson(res, 200, completionObject(reply, who));
    startSse(res);
    await writeFrames(res, frames(streamChunks(reply, chunking, who), chunking));
    await write(res, 'data: [DONE]\n\n');
    res.end();
  }

  async function serveFail(
    res: ServerResponse,
    fail: ScriptFail,
    who: ResponseIdentity,
    stream: boolean,
    entry: LoggedRequest,
  ): Promise<void> {
    if (fail.kind === 'http') {
      const headers: Record<string, string> =
        fail.retryAfterMs !== undefined ? { 'retry-after-ms': String(fail.retryAfterMs) } : {};
      return sendJson(res, fail.status, errorBody(fail.status, fail), headers);
    }
    if (fail.kind === 'hang' && fail.afterChunks === undefined) return; // not a byte until the client leaves
    const reply = fail.reply ?? DEFAULT_PREFIX;
    const before = framesBefore(
      frames(streamChunks(reply, fail.chunking, who), fail.chunking),
      fail.afterChunks ?? 0,
    );
    if (stream) startSse(res);
    else res.writeHead(200, { 'content-type': 'application/json' });
    if (stream) await writeFrames(res, before);
    switch (fail.kind) {
      case 'hang':
        return;
      case 'cut':
        if (fail.graceful) res.end();
        else {
          entry.closed = 'server';
          res.socket?.destroy();
        }
        return;
      case 'malformed': {
        const bad =
          fail.data ??
          `{"id":"${who.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"trunc`;
        await write(res, stream ? `data: ${bad}\n\n` : bad);
        res.end();
        return;
      }
      case 'stream_error':
        await write(
          res,
          stream
            ? dataLine(errorBody(500, errorDefaults(fail)))
            : JSON.stringify(errorBody(500, errorDefaults(fail))),
        );
        res.end();
        return;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const entry: LoggedRequest = {
      index: requests.length,
      method: req.method ?? 'GET',
      path,
      headers: redactHeaders(req),
      body: undefined,
      served: 'reply',
    };
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = text ? JSON.parse(text) : undefined;
      entry.body = parsed;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
        body = parsed as Record<string, unknown>;
    } catch {
      entry.bodyText = text;
    }
    res.on('close', () => {
      entry.closed ??= res.writableFinished ? 'finished' : 'client';
      changed();
    });
    requests.push(entry);
    changed();

    if (entry.method !== 'POST' || !CHAT_PATHS.has(path)) {
      entry.served = 'not_found';
      log(`emulator: #${entry.index} ${entry.method} ${path} -> 404`);
      return sendJson(
        res,
        404,
        errorBody(404, {
          message: `emulator: no route ${entry.method} ${path}; it serves POST /chat/completions`,
        }),
      );
    }
    if (!body) {
      entry.served = 'bad_json';
      log(`emulator: #${entry.index} POST ${path} -> 400 (body is not a JSON object)`);
      return sendJson(
        res,
        400,
        errorBody(400, { message: 'Invalid Format: the request body is not a JSON object' }),
      );
    }
    const n = nextEntry;
    let scripted = opts.respond ? opts.respond(body, entry) : script.responses[n];
    if (!scripted) {
      entry.served = 'exhausted';
      const message =
        `emulator: script exhausted: request #${entry.index} asked for response ${n}, but ${scriptName} has ` +
        `${script.responses.length} response(s); add a response to the script`;
      log(message);
      return sendJson(
        res,
        400,
        errorBody(400, { message, type: 'emulator_script_exhausted', code: 'script_exhausted' }),
      );
    }
    nextEntry++;
    entry.entry = n;
    if (script.vars) {
      try {
        scripted = applyVars(scripted, resolveVars(script.vars, usedVars(script.vars, scripted), body));
      } catch (e) {
        if (!(e instanceof VarNotFound)) throw e;
        entry.served = 'script_var';
        const message = `emulator: ${scriptName} response ${n}: ${e.message}`;
        log(message);
        return sendJson(
          res,
          400,
          errorBody(400, { message, type: 'emulator_script_var', code: 'script_var' }),
        );
      }
    }
    const who = identity(n, body);
    const stream = body.stream === true;
    if ('reply' in scripted) {
      log(`emulator: #${entry.index} POST ${path} -> response ${n}: reply${stream ? ' (stream)' : ''}`);
      return serveReply(res, scripted.reply, scripted.chunking, who, stream);
    }
    entry.served = `fail:${scripted.fail.kind}`;
    log(
      `emulator: #${entry.index} POST ${path} -> response ${n}: fail ${scripted.fail.kind}${'status' in scripted.fail ? ` ${scripted.fail.status}` : ''}`,
    );
    return serveFail(res, scripted.fail, who, stream, entry);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`emulator: internal error: ${(e as Error).stack ?? String(e)}`);
      if (!res.headersSent)
        sendJson(res, 500, errorBody(500, { message: `emulator internal error: ${(e as Error).message}` }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  const waitFor = (predicate: () => boolean, what: string, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      if (predicate()) return resolve();
      const check = () => {
        if (!predicate()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `emulator: timed out after ${timeoutMs} ms waiting for ${what} (${requests.length} request(s) seen)`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
    });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get served() {
      return nextEntry;
    },
    waitFor,
    waitForRequests: (n, timeoutMs) => waitFor(() => requests.length >= n, `${n} request(s)`, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function errorDefaults(fail: Extract<ScriptFail, { kind: 'stream_error' }>) {
  return {
    message: fail.message ?? 'The service encountered an error while generating the response.',
    type: fail.type,
    code: fail.code,
  };
}
