/**
 * An HTTP/1.1 client for tests that sees the response's chunked transfer encoding: each chunk is one
 * write of the server, whatever TCP did with it, so frame boundaries can be asserted exactly.
 */
import { connect } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as the server wrote it: one entry per chunk (or the whole body without chunking). */
  chunks: Buffer[];
  body: Buffer;
}

function parseChunked(data: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) throw new Error('raw-client: chunked body cut short');
    const size = Number.parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (size === 0) return chunks;
    chunks.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Sends one request on a fresh connection and reads the whole response. */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  body = '',
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const parts: Buffer[] = [];
    socket.on('data', (d) => parts.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(parts);
      const headEnd = all.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = all.subarray(0, headEnd).toString('latin1').split('\r\n');
      const h: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        h[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      const rest = all.subarray(headEnd + 4);
      const chunks = h['transfer-encoding'] === 'chunked' ? parseChunked(rest) : rest.length ? [rest] : [];
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: h, chunks, body: Buffer.concat(chunks) });
    });
    const payload = Buffer.from(body, 'utf8');
    const head = [
      `${method} ${path} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      'connection: close',
      ...(payload.length || method === 'POST'
        ? [`content-length: ${payload.length}`, 'content-type: application/json']
        : []),
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ].join('\r\n');
    // Not end(): a half-closed client counts as gone to a Node server; `connection: close` ends the exchange.
    socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), payload]));
  });
}

/** The SSE events of a body, parsed by eventsource-parser (what an SSE client sees). */
export function sseEvents(body: Buffer | string): EventSourceMessage[] {
  const out: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => out.push(e) });
  parser.feed(body.toString());
  return out;
}
