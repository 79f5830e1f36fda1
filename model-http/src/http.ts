/** Small HTTP helpers shared by the record and replay handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { wireFormatOf } from '@acp-snapshot/core';
import { errorBody } from './formats.js';

/** The whole request body. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** Header marking an answer the server made itself (not a model's), with the reason's kind. */
export const ERROR_HEADER = 'x-acp-snapshot-model-http';

/** Answers with the format's JSON error envelope carrying `message`. */
export function sendError(
  res: ServerResponse,
  path: string,
  status: number,
  kind: string,
  message: string,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(wireFormatOf(path), status, `acp-snapshot model-http: ${message}`));
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    [ERROR_HEADER]: kind,
  });
  res.end(body);
}

/**
 * Writes one frame and waits until it is handed to the socket, so each frame leaves as its own write
 * (the next is not coalesced with it in our buffers); resolves false once the client has gone.
 */
export function writeFrame(res: ServerResponse, bytes: Buffer): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => resolve(false);
    res.once('close', onClose);
    res.write(bytes, (err) => {
      res.off('close', onClose);
      resolve(!err);
    });
  });
}

/** Resolves when the client closes the connection (or at once when it already has). */
export function clientGone(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.closed) return Promise.resolve();
  return new Promise((resolve) => res.once('close', () => resolve()));
}
