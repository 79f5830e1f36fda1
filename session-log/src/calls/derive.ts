import type { ChatMessage, StreamChunk, Usage } from '@acp-snapshot/core';
import type { EventOf, SessionEvent } from '../events.js';
import type { ChunksEntry, ExpectedCall, ReplayEntry } from './script.js';

/** A recorded session log that cannot be turned into a replay script. */
export class ReplayLogError extends Error {
  override readonly name = 'ReplayLogError';
}

/** Options of deriveReplayScript. */
export interface DeriveOptions {
  /** The log's file name, used in error messages and entry locations. */
  source?: string;
  /** Each event's recorded time (ms), parallel to `events`; enables recorded timing. */
  timestamps?: readonly (number | undefined)[];
}

// The override file's format: llm-replay/README.md, "The override file" (not in the published package).
const OVERRIDE_HINT =
  'A derived replay needs every recorded model call to end with a finish chunk; a recording of a failed, ' +
  'cancelled or cut call needs a replay.override.json next to the fixture that says what the calls answer.';

/**
 * The chunks the live adapter produces for a compaction summary call. `maybeCompact` persists only
 * `rawOutput`, the concatenation of the call's text deltas (reasoning deltas are dropped and the call
 * offers no tools), so the call is rebuilt as one text block followed by a terminal `stop` that keeps
 * the recorded usage.
 */
export function summaryChunks(rawOutput: string, usage: Usage | undefined): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  if (rawOutput) chunks.push({ type: 'text', text: rawOutput });
  chunks.push(usage ? { type: 'finish', reason: 'stop', usage } : { type: 'finish', reason: 'stop' });
  return chunks;
}

interface PendingRequest {
  event: EventOf<'llm/request'>;
  index: number;
  messages: ChatMessage[] | undefined;
}

interface OpenCall {
  turn: number;
  step: number;
  start: number;
  chunks: StreamChunk[];
  delays: number[] | undefined;
  lastTs: number | undefined;
  request: ExpectedCall | undefined;
}

/**
 * Turns a recorded session log into the positional replay script: one entry per model call, in log
 * order. Recorded `assistant/chunk` runs are split at terminal finish chunks; a `compaction/summary`
 * marked `llmStreamCall` contributes one call rebuilt from its raw output. Each entry carries the
 * recorded `llm/request` that preceded it (with the conversation it sent) so serving can check drift.
 * Throws ReplayLogError for a call that never finished or a request that was never answered.
 */
export function deriveReplayScript(events: readonly SessionEvent[], opts: DeriveOptions = {}): ReplayEntry[] {
  const source = opts.source ?? 'the session log';
  const ts = opts.timestamps;
  const where = (i: number) => `event ${i + 1} of ${source}`;
  const entries: ReplayEntry[] = [];
  const conversation: ChatMessage[] = [];
  let pending: PendingRequest | undefined;
  let open: OpenCall | undefined;

  const expected = (p: PendingRequest | undefined): ExpectedCall | undefined =>
    p && {
      turn: p.event.turn,
      step: p.event.step,
      purpose: p.event.purpose,
      fingerprint: p.event.fingerprint,
      ...(p.messages ? { messages: p.messages } : {}),
      location: where(p.index),
    };
  const unterminated = (call: OpenCall, what: string): ReplayLogError =>
    new ReplayLogError(
      `unterminated model call at turn ${call.turn} step ${call.step} (${source}): its chunks start at event ` +
        `${call.start + 1} and ${what} before any finish chunk. ${OVERRIDE_HINT}`,
    );
  const unanswered = (p: PendingRequest, what: string): ReplayLogError =>
    new ReplayLogError(
      `unterminated model call at turn ${p.event.turn} step ${p.event.step} (${source}): the llm/request at ` +
        `${where(p.index)} (purpose ${p.event.purpose}) has no recorded response: ${what}. ${OVERRIDE_HINT}`,
    );
  const eventLabel = (e: SessionEvent, i: number): string => {
    const at =
      'turn' in e && e.turn !== undefined ? ` of turn ${e.turn}${'step' in e ? ` step ${e.step}` : ''}` : '';
    return `event ${i + 1} (${e.type}${at})`;
  };

  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    switch (e.type) {
      case 'assistant/chunk': {
        if (open && (open.turn !== e.turn || open.step !== e.step))
          throw unterminated(open, `${eventLabel(e, i)} comes`);
        if (!open) {
          let request: ExpectedCall | undefined;
          // The first chunk's delay counts from the request, when there is one.
          let since = ts?.[i];
          if (pending) {
            if (
              pending.event.turn !== e.turn ||
              pending.event.step !== e.step ||
              pending.event.purpose !== 'turn'
            ) {
              throw unanswered(pending, `${eventLabel(e, i)} belongs to another call`);
            }
            request = expected(pending);
            since = ts?.[pending.index] ?? since;
            pending = undefined;
          }
          open = {
            turn: e.turn,
            step: e.step,
            start: i,
            chunks: [],
            delays: ts ? [] : undefined,
            lastTs: since,
            request,
          };
        }
        open.chunks.push(e.chunk);
        if (open.delays) {
          const t = ts?.[i];
          if (t === undefined || open.lastTs === undefined) open.delays = undefined;
          else {
            open.delays.push(Math.max(0, t - open.lastTs));
            open.lastTs = t;
          }
        }
        if (e.chunk.type === 'finish') {
          const entry: ChunksEntry = { kind: 'chunks', chunks: open.chunks };
          if (open.request) entry.request = open.request;
          if (open.delays) entry.delaysMs = open.delays;
          entries.push(entry);
          open = undefined;
        }
        break;
      }
      case 'llm/request':
        if (open) throw unterminated(open, `a new model request at ${eventLabel(e, i)} comes`);
        if (pending) throw unanswered(pending, `the next model request at ${eventLabel(e, i)} comes first`);
        pending = { event: e, index: i, messages: e.purpose === 'turn' ? [...conversation] : undefined };
        break;
      case 'compaction/summary':
        if (open) throw unterminated(open, `a compaction summary at ${eventLabel(e, i)} comes`);
        if (e.llmStreamCall) {
          let request: ExpectedCall | undefined;
          if (pending) {
            if (pending.event.purpose !== 'compaction' || pending.event.turn !== e.turn) {
              throw unanswered(pending, `the compaction summary at ${eventLabel(e, i)} answers another call`);
            }
            request = expected(pending);
            pending = undefined;
          }
          entries.push({
            kind: 'chunks',
            chunks: summaryChunks(e.rawOutput, e.usage),
            ...(request ? { request } : {}),
          });
        }
        conversation.splice(0, e.replacedMessages, { role: 'summary', content: e.rawOutput });
        break;
      case 'message/committed':
        conversation.push(e.message);
        break;
      case 'turn/end':
        if (open) throw unterminated(open, `the turn ends (${eventLabel(e, i)}, kind ${e.kind})`);
        if (pending) throw unanswered(pending, `the turn ends first (${eventLabel(e, i)}, kind ${e.kind})`);
        break;
      default:
        break;
    }
  }
  if (open) throw unterminated(open, 'the log ends');
  if (pending) throw unanswered(pending, 'the log ends first');
  return entries;
}

/**
 * Every recorded `llm/request` of a log with the conversation it carried, without requiring the
 * calls to be answered: used to describe drift for override entries, whose fixture may record
 * failed or cancelled calls.
 */
export function recordedRequests(
  events: readonly SessionEvent[],
  source = 'the session log',
): ExpectedCall[] {
  const out: ExpectedCall[] = [];
  const conversation: ChatMessage[] = [];
  events.forEach((e, i) => {
    if (e.type === 'llm/request') {
      out.push({
        turn: e.turn,
        step: e.step,
        purpose: e.purpose,
        fingerprint: e.fingerprint,
        ...(e.purpose === 'turn' ? { messages: [...conversation] } : {}),
        location: `event ${i + 1} of ${source}`,
      });
    } else if (e.type === 'message/committed') conversation.push(e.message);
    else if (e.type === 'compaction/summary') {
      conversation.splice(0, e.replacedMessages, { role: 'summary', content: e.rawOutput });
    }
  });
  return out;
}
