// The emulator's request log: every request it received, as tests assert on them (headers redacted), and
// waiting for the log to reach a state.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CREDENTIAL_HEADERS, type WireFormat } from '@acp-snapshot/core';
import type { ScriptFail } from './script.js';

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
  format?: WireFormat;
  /** The script entry that answered it, if any. */
  entry?: number;
  served: Served;
  /** How the connection ended: response finished, client went away first, or the emulator cut it. */
  closed?: 'finished' | 'client' | 'server';
}

/** A request as received: its log entry, its body's text and, when the body is a JSON object, that object. */
export interface Received {
  entry: LoggedRequest;
  url: URL;
  text: string;
  body: Record<string, unknown> | undefined;
}

function redactHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.join(', ') : v;
    // The scheme of an authorization stays readable (Bearer, Basic); every other credential header goes.
    out[k] = !CREDENTIAL_HEADERS.has(k)
      ? value
      : k.endsWith('authorization')
        ? `${value.split(' ')[0]} [redacted]`
        : '[redacted]';
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** Every request received, in order; a waiter is checked on each arrival and each connection close. */
export class RequestLog {
  /** Live: entries are added as requests arrive and updated as they are answered. */
  readonly requests: LoggedRequest[] = [];
  private readonly waiters = new Set<() => void>();

  /** Reads a request's body, logs it and follows how its connection ends. */
  async receive(req: IncomingMessage, res: ServerResponse): Promise<Received> {
    const text = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://emulator');
    const entry: LoggedRequest = {
      index: this.requests.length,
      method: req.method ?? 'GET',
      path: url.pathname,
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
      this.changed();
    });
    this.requests.push(entry);
    this.changed();
    return { entry, url, text, body };
  }

  /** Resolves when `predicate` holds; rejects after `timeoutMs` naming `what` and how many requests came. */
  waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    return new Promise<void>((resolve, reject) => {
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
            `emulator: timed out after ${timeoutMs} ms waiting for ${what} (${this.requests.length} request(s) seen)`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  private changed(): void {
    for (const w of [...this.waiters]) w();
  }
}
