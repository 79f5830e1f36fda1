// The model emulator: a server on 127.0.0.1 that serves a script of model answers in order (or by `match`)
// in the wire format the request's path names (OpenAI Chat in DeepSeek's shape, OpenAI Responses, Anthropic
// Messages, Gemini), and injects failures. This module is its lifecycle; routing.ts routes a request,
// answer.ts gives the script's answer (script-cursor.ts: which entry), faults.ts injects failures,
// response-writer.ts writes bodies and streams, request-log.ts keeps what arrived.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Responder } from './answer.js';
import { type LoggedRequest, RequestLog } from './request-log.js';
import { serveRequest } from './routing.js';
import { loadScript, parseScript, type Script } from './script.js';
import { ScriptCursor } from './script-cursor.js';

export type { LoggedRequest, Served } from './request-log.js';

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
  respond?: Responder;
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

/** Starts an emulator on 127.0.0.1. A bad script rejects with a ScriptError naming the file and path. */
export async function startEmulator(opts: EmulatorOptions): Promise<Emulator> {
  const script: Script = opts.scriptPath ? loadScript(opts.scriptPath) : parseScript(opts.script);
  const scriptName = opts.scriptPath ?? '<inline script>';
  const log = opts.log ?? (() => {});
  const cursor = new ScriptCursor(script, scriptName, log);
  const requestLog = new RequestLog();
  const answerer = { script, scriptName, cursor, respond: opts.respond, log };
  const server = createServer((req, res) => serveRequest(req, res, requestLog, answerer));
  const port = await listen(server, opts.port ?? 0);
  const waitFor = requestLog.waitFor.bind(requestLog);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: requestLog.requests,
    get served() {
      return cursor.served;
    },
    waitFor,
    waitForRequests: (n, timeoutMs) =>
      waitFor(() => requestLog.requests.length >= n, `${n} request(s)`, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Listens on 127.0.0.1:`port` (0: an ephemeral one); resolves with the port, rejects if it is taken. */
async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
