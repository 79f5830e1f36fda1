/**
 * One model call, as every caller in the agent makes it (a turn's step, a compaction summary): the request
 * fingerprinted with the session's roots and persisted (`llm/request`), the plugin's chunks read one by one, each
 * validated, until its finish, the read given up when the turn is aborted, and the plugin told to stop producing
 * however the call ends. What a chunk means (persisted, shown, summed up) is the caller's.
 */
import { fingerprintRequest, type LlmRequest, StreamChunk } from '@acp-snapshot/core';
import { untilAborted } from './abort.js';
import type { TurnContext } from './turn-context.js';
import { TurnError } from './turn-error.js';

/** Where the call is made: its session, turn and step (numbered from 1), and the turn's abort signal. */
export interface ModelCallAt {
  session: Pick<TurnContext, 'services' | 'roots' | 'record'>;
  turn: number;
  step: number;
  signal: AbortSignal;
}

/**
 * Makes the call and hands each chunk to `onChunk`, the finish last; throws `stream_cut` naming `what` (the
 * model stream, the compaction summary stream) when the stream ends without a finish, `malformed_chunk` when the
 * plugin yields something that is no chunk.
 */
export async function callModel(
  at: ModelCallAt,
  request: LlmRequest & { purpose: 'turn' | 'compaction' },
  what: string,
  onChunk: (chunk: StreamChunk) => Promise<void> | void,
): Promise<void> {
  const { session, turn, step, signal } = at;
  const { plugin } = session.services;
  const fingerprint = fingerprintRequest(request, session.roots);
  await session.record({ type: 'llm/request', turn, step, purpose: request.purpose, fingerprint });
  const iterator = plugin
    .stream(request, { signal, turn, step, fingerprint, roots: session.roots })
    [Symbol.asyncIterator]();
  let finished = false;
  try {
    while (!finished) {
      const next = await untilAborted(iterator.next(), signal);
      if (next.done) break;
      const parsed = StreamChunk.safeParse(next.value);
      if (!parsed.success) {
        throw new TurnError(
          `the LLM plugin "${plugin.name}" yielded an invalid chunk at turn ${turn} step ${step}: ${parsed.error.message}`,
          'malformed_chunk',
        );
      }
      finished = parsed.data.type === 'finish';
      await onChunk(parsed.data);
    }
  } finally {
    // Stops a plugin still producing (after a finish, a cancel or an error); never awaited, so a plugin that
    // ignores return() cannot hang the turn.
    iterator.return?.()?.catch(() => {});
  }
  if (!finished) {
    throw new TurnError(
      `${what} ended without a finish at turn ${turn} step ${step} (plugin "${plugin.name}")`,
      'stream_cut',
    );
  }
}
