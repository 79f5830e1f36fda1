// fast-check generators of session logs, for the property tests of the codec, persistence and projection.
import type { FinishReason, StreamChunk } from '@acp-snapshot/core';
import { anyText } from '@acp-snapshot/core/testing';
import fc from 'fast-check';
import { buildHeader, DEFAULT_START_TS } from '../builders.js';
import type { LogRecord, SessionEvent } from '../events.js';

const nat = fc.nat({ max: 5 });
const usage = fc.record(
  {
    promptTokens: fc.nat(),
    completionTokens: fc.nat(),
    totalTokens: fc.nat(),
    reasoningTokens: fc.nat(),
    cachedTokens: fc.nat(),
  },
  { requiredKeys: ['promptTokens', 'completionTokens', 'totalTokens'] },
);
const reason = fc.constantFrom<FinishReason>('stop', 'length', 'tool_calls', 'content_filter');

/** A stream chunk of any kind (text most often, as in real streams). */
export const anyChunk: fc.Arbitrary<StreamChunk> = fc.oneof(
  { weight: 6, arbitrary: anyText().map((text) => ({ type: 'text' as const, text })) },
  { weight: 2, arbitrary: anyText().map((text) => ({ type: 'reasoning' as const, text })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(nat, anyText(10), anyText(10))
      .map(([index, id, name]) => ({ type: 'tool_call_start' as const, index, id, name })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(nat, anyText())
      .map(([index, delta]) => ({ type: 'tool_call_args' as const, index, delta })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(reason, fc.option(usage, { nil: undefined }))
      .map(
        ([r, u]): StreamChunk =>
          u ? { type: 'finish', reason: r, usage: u } : { type: 'finish', reason: r },
      ),
  },
);

/** A body event that is not a chunk. */
export const otherEvent: fc.Arbitrary<SessionEvent> = fc.oneof(
  nat.map((turn) => ({ type: 'turn/start' as const, turn })),
  fc.tuple(nat, anyText()).map(([turn, message]) => ({
    type: 'turn/end' as const,
    turn,
    kind: 'error' as const,
    error: { message },
  })),
  fc.tuple(nat, nat, anyText(10), anyText()).map(([turn, step, id, args]) => ({
    type: 'tool/call' as const,
    turn,
    step,
    toolCallId: id,
    name: 'read_file',
    arguments: args,
  })),
  fc.tuple(nat, nat, anyText(10), anyText(80)).map(([turn, step, id, preview]) => ({
    type: 'tool/result' as const,
    turn,
    step,
    toolCallId: id,
    status: 'completed' as const,
    preview,
  })),
  fc.tuple(nat, anyText(200)).map(([turn, content]) => ({
    type: 'message/committed' as const,
    turn,
    message: { role: 'user' as const, content },
  })),
  fc.tuple(nat, nat).map(([turn, step]) => ({
    type: 'llm/request' as const,
    turn,
    step,
    purpose: 'turn' as const,
    fingerprint: { hash: 'h', parts: { model: 'm', system: 's', tools: 't', params: 'p', messages: ['a'] } },
  })),
  anyText(12)
    .filter((modeId) => modeId.length > 0)
    .map((modeId) => ({ type: 'session/mode' as const, modeId })),
  fc
    .tuple(fc.constantFrom('model', 'x'), anyText(20))
    .map(([configId, value]) => ({ type: 'session/config' as const, configId, value })),
  fc.constant({ type: 'session/close' as const }),
  fc.constant({ type: 'boundary' as const, kind: 'resume' as const, method: 'session/resume' as const }),
);

/** A run of chunks of one (turn, step): empty, short, or very long. */
const chunkRun = fc
  .tuple(
    nat,
    nat,
    fc.oneof(
      { weight: 4, arbitrary: fc.array(anyChunk, { maxLength: 8 }) },
      { weight: 1, arbitrary: fc.array(anyChunk, { minLength: 200, maxLength: 600 }) },
    ),
  )
  .map(([turn, step, chunks]) =>
    chunks.map((chunk): SessionEvent => ({ type: 'assistant/chunk', turn, step, chunk })),
  );

/** Events of a log, header first: chunk runs with other events interleaved, many turns and steps. */
export const anyEvents: fc.Arbitrary<SessionEvent[]> = fc
  .tuple(
    anyText(60),
    fc.array(
      fc.oneof({ weight: 3, arbitrary: chunkRun }, { weight: 2, arbitrary: otherEvent.map((e) => [e]) }),
      {
        maxLength: 25,
      },
    ),
  )
  .map(([prompt, parts]) => [buildHeader({ systemPrompt: prompt }), ...parts.flat()]);

/** How records are enveloped: as written live, projected (none), or an arbitrary mixture. */
export type EnvelopeMode = 'live' | 'projected' | 'mixed';

/** Records from events under an envelope mode; times move by arbitrary (even negative) steps. */
export const anyRecords: fc.Arbitrary<LogRecord[]> = fc
  .tuple(
    anyEvents,
    fc.constantFrom<EnvelopeMode>('live', 'projected', 'mixed'),
    fc.infiniteStream(fc.integer({ min: -5, max: 5000 })),
    fc.infiniteStream(fc.nat({ max: 5 })),
  )
  .map(([events, mode, deltas, picks]) => {
    let seq = 0;
    let ts = DEFAULT_START_TS;
    const dIt = deltas[Symbol.iterator]();
    const pIt = picks[Symbol.iterator]();
    return events.map((event): LogRecord => {
      ts += dIt.next().value as number;
      const pick = pIt.next().value as number;
      if (mode === 'projected') return { event };
      if (mode === 'mixed') {
        seq += pick === 0 ? 2 : 1; // occasional gaps in seq break packed runs
        if (pick === 1) return { event };
        if (pick === 2) return { seq, event };
        if (pick === 3) return { ts, event };
      } else seq++;
      return { seq, ts, event };
    });
  });
