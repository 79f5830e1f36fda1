// The model emulator: a server on 127.0.0.1 that serves a script of model answers in order (or by `match`)
// in the wire format the request's path names (OpenAI Chat in DeepSeek's shape, OpenAI Responses, Anthropic
// Messages, Gemini), and injects failures.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WireFormat as FormatName } from '@acp-snapshot/core';
import { defaultFormat, formatFor, ROUTE_LIST } from './format.js';
import {
  loadScript,
  parseScript,
  type Script,
  type ScriptChunking,
  type ScriptEntry,
  type ScriptFail,
  type ScriptMatch,
  type ScriptReply,
} from './script.js';
import { applyVars, type RoleText, resolveVars, usedVars, VarNotFound } from './template.js';
import { type Frame, framesBefore, type ResponseIdentity } from './wire.js';
import type { FormatAdapter as WireFormat } from './wire-format.js';

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
  | 'script_var'
  | 'preflight';

/** One request the emulator received, as tests assert on it. */
export interface LoggedRequest {
  /** Arrival order, from 0 (every request, including ones that consumed no script entry). */
  index: number;
  method: string;
  path: string;
  /**
   * Lower-case header names; the authorization value is replaced by `<scheme> [redacted]`, x-api-key and
   * x-goog-api-key by `[redacted]`.
   */
  headers: Record<string, string>;
  /** The parsed JSON body (undefined when the body was not JSON; see bodyText). */
  body: unknown;
  bodyText?: string;
  /** The wire format its path named (none for an unknown route or a preflight). */
  format?: FormatName;
  /** The script entry that answered it, if any. */
  entry?: number;
  served: Served;
  /** How the connection ended: response finished, client went away first, or the emulator cut it. */
  closed?: 'finished' | 'client' | 'server';
}

/** A running emulator. */
export interface Emulator {
  /**
   * Base URL for an OpenAI SDK `baseURL` (`/chat/completions` and `/v1/chat/completions` both work), an
   * Anthropic or Gemini base URL (`/v1/messages`, `/v1beta/models/...`).
   */
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
/** Anthropic's clients check the base URL with a HEAD before the first call. */
const PREFLIGHT_PATHS = new Set(['/', '/v1']);
/** What a mid-stream failure streams first when its script entry gives no reply. */
const DEFAULT_PREFIX: ScriptReply = { text: 'Partial answer before the failure.' };

/** Headers that carry the key in Anthropic's and Gemini's clients (OpenAI's use `authorization`). */
const KEY_HEADERS = new Set(['x-api-key', 'x-goog-api-key']);

function redactHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.join(', ') : v;
    out[k] =
      k === 'authorization' ? `${value.split(' ')[0]} [redacted]` : KEY_HEADERS.has(k) ? '[redacted]' : value;
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
  sendText(res, status, JSON.stringify(body), headers);
}

function sendText(
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

function matches(m: ScriptMatch, path: string, text: string): boolean {
  return (
    (m.path === undefined || m.path === path) &&
    (m.bodyIncludes === undefined || text.includes(m.bodyIncludes))
  );
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
  const consumed = new Set<number>();
  const withMatch = script.responses.filter((e) => e.match).length;
  let toolCallCounter = 0;
  const log = opts.log ?? (() => {});

  const identity = (
    n: number,
    fmt: WireFormat,
    body: Record<string, unknown>,
    path: string,
  ): ResponseIdentity => ({
    id: `chatcmpl-emu-${n}`,
    index: n,
    created: CREATED_BASE + n,
    model: fmt.model(body, path) ?? 'emulator',
    nextToolCallId: (prefix = 'call_') => `${prefix}${toolCallCounter++}`,
    promptChars: fmt.promptChars(body),
  });

  /** The first unused entry whose `match` the request meets, else the first unused entry without one. */
  let respondedCount = 0;
  function pickUnused(path: string, text: string): number | undefined {
    const free = (i: number) => !consumed.has(i);
    const matched = script.responses.findIndex((e, i) => free(i) && e.match && matches(e.match, path, text));
    if (matched >= 0) return matched;
    const next = script.responses.findIndex((e, i) => free(i) && !e.match);
    return next >= 0 ? next : undefined;
  }

  /**
   * The entry for a request. A recording run against a running emulator is repeatable: a request that starts a
   * conversation (no model turn, no tool output yet), finds no unused entry and meets a `match` entry that an
   * earlier run used starts the script over, so recording again (or one test again) is served the same answers
   * with the same ids. A request in the middle of a conversation, or one no `match` meets, is still told the
   * script is exhausted.
   */
  function pick(path: string, text: string, messages: readonly RoleText[]): number | undefined {
    const n = pickUnused(path, text);
    if (n !== undefined) return n;
    const starts = messages.every((m) => m.role !== 'assistant' && m.role !== 'tool');
    if (!starts || !script.responses.some((e) => e.match && matches(e.match, path, text))) return undefined;
    consumed.clear();
    toolCallCounter = 0;
    log(`emulator: every response was served; the script starts over for a new conversation`);
    return pickUnused(path, text);
  }

  async function serveReply(
    res: ServerResponse,
    fmt: WireFormat,
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

  async function serveFail(
    res: ServerResponse,
    fmt: WireFormat,
    fail: ScriptFail,
    who: ResponseIdentity,
    stream: boolean,
    entry: LoggedRequest,
  ): Promise<void> {
    if (fail.kind === 'http') {
      const headers: Record<string, string> =
        fail.retryAfterMs !== undefined ? { 'retry-after-ms': String(fail.retryAfterMs) } : {};
      return sendJson(res, fail.status, fmt.errorBody(fail.status, fail), headers);
    }
    if (fail.kind === 'hang' && fail.afterChunks === undefined) return; // not a byte until the client leaves
    const reply = fail.reply ?? DEFAULT_PREFIX;
    const before = framesBefore(fmt.streamFrames(reply, fail.chunking, who), fail.afterChunks ?? 0);
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
        const bad = fail.data ?? fmt.truncated(who);
        await write(res, stream ? fmt.dataFrame(bad) : bad);
        res.end();
        return;
      }
      case 'stream_error': {
        const fields = { ...fail, message: fail.message ?? fmt.defaultStreamErrorMessage };
        const sent = before.filter((f) => f.kind === 'data').length;
        await write(res, stream ? fmt.streamError(fields, sent) : JSON.stringify(fmt.errorBody(500, fields)));
        res.end();
        return;
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://emulator');
    const path = url.pathname;
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
    return answer(res, fmt, entry, body, { path, text, query: url.searchParams });
  }

  /** The script's answer to a routed request with a JSON body: a reply, a failure, or why there is none. */
  async function answer(
    res: ServerResponse,
    fmt: WireFormat,
    entry: LoggedRequest,
    body: Record<string, unknown>,
    { path, text, query }: { path: string; text: string; query: URLSearchParams },
  ): Promise<void> {
    // A prompt-aware responder answers by content; otherwise the script does (match, then order).
    const responded = opts.respond ? opts.respond(body, entry) : undefined;
    const n = opts.respond
      ? responded
        ? respondedCount++
        : undefined
      : pick(path, text, fmt.messages(body));
    if (n === undefined) {
      entry.served = 'exhausted';
      const message = withMatch
        ? `emulator: script exhausted: request #${entry.index} (POST ${path}) found no unused response in ` +
          `${scriptName} (${script.responses.length} response(s), ${withMatch} with "match" it does not meet); ` +
          'add a response, or a "match" for this request, to the script'
        : `emulator: script exhausted: request #${entry.index} asked for response ${consumed.size}, but ` +
          `${scriptName} has ${script.responses.length} response(s); add a response to the script`;
      log(message);
      return sendJson(
        res,
        400,
        fmt.errorBody(400, { message, type: 'emulator_script_exhausted', code: 'script_exhausted' }),
      );
    }
    if (!responded) consumed.add(n);
    entry.entry = n;
    let scripted = responded ?? script.responses[n]!;
    if (script.vars) {
      try {
        const names = usedVars(script.vars, scripted);
        scripted = applyVars(scripted, resolveVars(script.vars, names, fmt.messages(body)));
      } catch (e) {
        if (!(e instanceof VarNotFound)) throw e;
        entry.served = 'script_var';
        const message = `emulator: ${scriptName} response ${n}: ${e.message}`;
        log(message);
        return sendJson(
          res,
          400,
          fmt.errorBody(400, { message, type: 'emulator_script_var', code: 'script_var' }),
        );
      }
    }
    const who = identity(n, fmt, body, path);
    const stream = fmt.streams(body, path, query);
    if ('reply' in scripted) {
      log(`emulator: #${entry.index} POST ${path} -> response ${n}: reply${stream ? ' (stream)' : ''}`);
      return serveReply(res, fmt, scripted, who, { stream, path });
    }
    entry.served = `fail:${scripted.fail.kind}`;
    log(
      `emulator: #${entry.index} POST ${path} -> response ${n}: fail ${scripted.fail.kind}${'status' in scripted.fail ? ` ${scripted.fail.status}` : ''}`,
    );
    return serveFail(res, fmt, scripted.fail, who, stream, entry);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`emulator: internal error: ${(e as Error).stack ?? String(e)}`);
      if (!res.headersSent)
        sendJson(
          res,
          500,
          defaultFormat.errorBody(500, { message: `emulator internal error: ${(e as Error).message}` }),
        );
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
      return consumed.size;
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
