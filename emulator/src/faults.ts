// Failure injection: a script entry's `fail` served in the request's wire format (an HTTP error, a hang, a
// cut connection, a malformed event, an error mid-stream), after the frames it lets through.
import type { ServerResponse } from 'node:http';
import type { LoggedRequest } from './request-log.js';
import { sendJson, startSse, write, writeFrames } from './response-writer.js';
import type { ScriptFail, ScriptReply } from './script.js';
import { framesBefore, type ResponseIdentity } from './wire.js';
import type { FormatAdapter } from './wire-format.js';

/** What a mid-stream failure streams first when its script entry gives no reply. */
const DEFAULT_PREFIX: ScriptReply = { text: 'Partial answer before the failure.' };

/** Serves `fail`; a connection the emulator cuts is marked so on the request's log entry. */
export async function serveFail(
  res: ServerResponse,
  fmt: FormatAdapter,
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
