/**
 * A stand-in model for tests and the bench: a real HTTP server on loopback answering each of the four
 * wire formats with canned frames in that format's real shape (SSE events, Gemini's CRLF, `[DONE]`),
 * each frame its own write. It keeps the requests it got, so a test can see what was forwarded.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamsAnswer, type WireFormat, wireFormatOf } from '@acp-snapshot/core';
import { readBody, writeFrame } from '../http.js';

export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeUpstreamOptions {
  /** The answer's text, one delta per frame. */
  deltas: string[];
  /** Write each frame in two pieces, cut inside its first multi-byte character (TCP-like splits). */
  split?: boolean;
  /** Answer the first N requests with 500 (to make clients retry). */
  failFirst?: number;
  /** Hold each stream open after its first frame until `release()` (to prove two streams run at once). */
  hold?: boolean;
}

export interface FakeUpstream {
  url: string;
  requests: FakeRequest[];
  /** Lets held streams finish. */
  release(): void;
  /** Resolves once `n` streams are being held. */
  holding(n: number): Promise<void>;
  close(): Promise<void>;
}

const sse = (event: string | undefined, data: unknown, eol = '\n') =>
  `${event ? `event: ${event}${eol}` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}${eol}${eol}`;

/** The frames (and content type) a format answers `deltas` with, streamed or as one JSON body. */
export function cannedAnswer(
  format: WireFormat | undefined,
  deltas: string[],
  stream: boolean,
): { type: string; frames: string[] } {
  const text = deltas.join('');
  const json = (v: unknown) => ({ type: 'application/json', frames: [JSON.stringify(v)] });
  const events = (frames: string[]) => ({ type: 'text/event-stream; charset=utf-8', frames });
  switch (format) {
    case 'openai-responses':
      if (!stream)
        return json({
          id: 'resp_1',
          object: 'response',
          status: 'completed',
          output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }],
        });
      return events([
        sse('response.created', {
          type: 'response.created',
          response: { id: 'resp_1', status: 'in_progress' },
        }),
        ...deltas.map((delta) =>
          sse('response.output_text.delta', {
            type: 'response.output_text.delta',
            item_id: 'msg_1',
            output_index: 0,
            content_index: 0,
            delta,
          }),
        ),
        sse('response.completed', {
          type: 'response.completed',
          response: { id: 'resp_1', status: 'completed' },
        }),
      ]);
    case 'anthropic-messages':
      if (!stream)
        return json({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
        });
      return events([
        sse('message_start', {
          type: 'message_start',
          message: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
        }),
        sse('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        }),
        ': keep-alive comment\n\n',
        ...deltas.map((t) =>
          sse('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: t },
          }),
        ),
        sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
        sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' } }),
        sse('message_stop', { type: 'message_stop' }),
      ]);
    case 'gemini': {
      const chunk = (t: string, last: boolean) => ({
        candidates: [
          {
            content: { parts: [{ text: t }], role: 'model' },
            ...(last ? { finishReason: 'STOP' } : {}),
            index: 0,
          },
        ],
      });
      if (!stream) return json(chunk(text, true));
      // Gemini ends its lines with CRLF.
      return events(deltas.map((t, i) => sse(undefined, chunk(t, i === deltas.length - 1), '\r\n')));
    }
    default:
      if (!stream)
        return json({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        });
      return events([
        ...deltas.map((content, i) =>
          sse(undefined, {
            id: 'chatcmpl-1',
            object: 'chat.completion.chunk',
            choices: [
              {
                index: 0,
                delta: i === 0 ? { role: 'assistant', content } : { content },
                finish_reason: null,
              },
            ],
          }),
        ),
        sse(undefined, {
          id: 'chatcmpl-1',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        }),
        sse(undefined, '[DONE]'),
      ]);
  }
}

/** The frame's bytes in two pieces, cut inside its first multi-byte character (or in the middle). */
function splitInside(bytes: Buffer): Buffer[] {
  const at = bytes.findIndex((b) => b >= 0xc0);
  const cut = at >= 0 ? at + 1 : bytes.length >> 1;
  return cut > 0 && cut < bytes.length ? [bytes.subarray(0, cut), bytes.subarray(cut)] : [bytes];
}

export async function startFakeUpstream(options: FakeUpstreamOptions): Promise<FakeUpstream> {
  const requests: FakeRequest[] = [];
  let released = false;
  let releases: Array<() => void> = [];
  let held = 0;
  let onHold: Array<() => void> = [];
  const server = createServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
    if (requests.length <= (options.failFirst ?? 0)) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } }));
      return;
    }
    const path = req.url ?? '/';
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      // Not JSON: asks for no stream.
    }
    const stream = streamsAnswer(wireFormatOf(path), path, parsed);
    const { type, frames } = cannedAnswer(wireFormatOf(path), options.deltas, stream);
    res.writeHead(200, { 'content-type': type, 'x-upstream-only': 'not kept' });
    res.flushHeaders();
    for (let i = 0; i < frames.length; i++) {
      const bytes = Buffer.from(frames[i]!, 'utf8');
      for (const piece of options.split ? splitInside(bytes) : [bytes]) await writeFrame(res, piece);
      if (i === 0 && options.hold && !released) {
        held++;
        for (const f of onHold) f();
        await new Promise<void>((r) => releases.push(r));
      }
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    release() {
      released = true;
      for (const r of releases) r();
      releases = [];
    },
    holding: (n) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (held >= n) {
            onHold = onHold.filter((f) => f !== check);
            resolve();
          }
        };
        onHold.push(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
