import { fingerprintRequest, type StreamChunk } from '@acp-snapshot/core';
import {
  deriveReplayScript,
  finishChunk,
  type SessionEvent,
  summaryChunks,
  textChunk,
} from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { Recording } from './test-support.js';

const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

test('recorded chunks split into one entry per terminal finish, each with its llm/request', () => {
  const rec = new Recording()
    .user(1, 'hi')
    .call(1, 1, [
      { type: 'reasoning', text: 'think' },
      textChunk('Hel'),
      textChunk('lo'),
      finishChunk('stop', usage),
    ])
    .end(1)
    .user(2, 'again')
    .call(2, 1, [
      { type: 'tool_call_start', index: 0, id: 'c1', name: 'read_file' },
      { type: 'tool_call_args', index: 0, delta: '{}' },
      finishChunk('tool_calls'),
    ])
    .call(2, 2, [textChunk('done'), finishChunk()])
    .end(2);
  const script = deriveReplayScript(rec.events, { source: 'hello/session.jsonl' });
  expect(script.map((e) => e.kind)).toEqual(['chunks', 'chunks', 'chunks']);
  expect(script[0]!.kind === 'chunks' && script[0]!.chunks).toEqual([
    { type: 'reasoning', text: 'think' },
    textChunk('Hel'),
    textChunk('lo'),
    finishChunk('stop', usage),
  ]);
  expect(script.map((e) => [e.request?.turn, e.request?.step, e.request?.purpose])).toEqual([
    [1, 1, 'turn'],
    [2, 1, 'turn'],
    [2, 2, 'turn'],
  ]);
  const llmRequests = rec.events.filter((e) => e.type === 'llm/request');
  expect(script.map((e) => e.request?.fingerprint)).toEqual(llmRequests.map((e) => e.fingerprint));
  // The recorded conversation each request carried (for drift reports).
  expect(script[2]!.request?.messages?.map((m) => m.content)).toEqual(['hi', 'Hello', 'again', '']);
  expect(script[1]!.request?.location).toBe(
    `event ${rec.events.indexOf(llmRequests[1]!) + 1} of hello/session.jsonl`,
  );
});

test('a (turn, step) change before a finish rejects the log with its location', () => {
  const rec = new Recording().user(1, 'hi').call(1, 1, [textChunk('partial')], false);
  rec.push({ type: 'assistant/chunk', turn: 1, step: 2, chunk: finishChunk() });
  expect(() => deriveReplayScript(rec.events, { source: 'cut/session.jsonl' })).toThrow(
    /^unterminated model call at turn 1 step 1 \(cut\/session.jsonl\): its chunks start at event 5 and event 6 \(assistant\/chunk of turn 1 step 2\) comes before any finish chunk\. .*replay\.override\.json/,
  );
});

test('a call cut by the end of its turn, a new request or the end of the log is unterminated', () => {
  const cancelled = new Recording()
    .user(1, 'hi')
    .call(1, 1, [textChunk('par')], false)
    .end(1, 'cancelled');
  expect(() => deriveReplayScript(cancelled.events)).toThrow(
    'unterminated model call at turn 1 step 1 (the session log): its chunks start at event 5 and the turn ends (event 6 (turn/end of turn 1), kind cancelled) before any finish chunk',
  );
  const torn = new Recording().user(1, 'hi').call(1, 1, [textChunk('par')], false);
  expect(() => deriveReplayScript(torn.events, { source: 'f.jsonl' })).toThrow(
    'unterminated model call at turn 1 step 1 (f.jsonl): its chunks start at event 5 and the log ends before any finish chunk',
  );
  const next = new Recording()
    .user(1, 'hi')
    .call(1, 1, [textChunk('par')], false)
    .call(1, 2, [finishChunk()]);
  expect(() => deriveReplayScript(next.events)).toThrow(
    /unterminated model call at turn 1 step 1 .*a new model request at event 6 \(llm\/request of turn 1 step 2\) comes before any finish chunk/,
  );
});

test('a recorded request without any response (a failure before the stream) is unterminated too', () => {
  const rec = new Recording().user(1, 'hi').call(1, 1, [], false);
  rec.push({
    type: 'turn/end',
    turn: 1,
    kind: 'error',
    error: { message: 'HTTP 401', code: 'unauthorized' },
  });
  expect(() => deriveReplayScript(rec.events, { source: 'p401.jsonl' })).toThrow(
    'unterminated model call at turn 1 step 1 (p401.jsonl): the llm/request at event 4 of p401.jsonl (purpose turn) has no recorded response: the turn ends first (event 5 (turn/end of turn 1), kind error)',
  );
});

test('a marked compaction summary is one call at its log position, rebuilt from rawOutput', () => {
  const rec = new Recording()
    .user(1, 'a')
    .call(1, 1, [textChunk('A'), finishChunk()])
    .end(1)
    .user(2, 'b');
  const summaryRequest = rec.request('compaction', [
    { role: 'user', content: 'Summarize this conversation so far: ...' },
  ]);
  rec.push({
    type: 'llm/request',
    turn: 2,
    step: 1,
    purpose: 'compaction',
    fingerprint: fingerprintRequest(summaryRequest),
  });
  rec.push({
    type: 'compaction/summary',
    turn: 2,
    rawOutput: 'The user said a.',
    replacedMessages: 2,
    usage,
    llmStreamCall: true,
  });
  rec.push({ type: 'boundary', kind: 'compaction', turn: 2 });
  rec.call(2, 1, [textChunk('B'), finishChunk()]).end(2);
  // Template / remote summaries (no marker) are not model calls of this plugin.
  rec.push({ type: 'compaction/summary', turn: 2, rawOutput: 'template', replacedMessages: 1 });
  const script = deriveReplayScript(rec.events);
  expect(script.map((e) => [e.request?.turn, e.request?.step, e.request?.purpose])).toEqual([
    [1, 1, 'turn'],
    [2, 1, 'compaction'],
    [2, 1, 'turn'],
  ]);
  expect(script[1]).toMatchObject({
    kind: 'chunks',
    chunks: [textChunk('The user said a.'), finishChunk('stop', usage)],
  });
  // The turn request after compaction carried the summary in place of the replaced messages.
  expect(script[2]!.request?.messages).toEqual([
    { role: 'summary', content: 'The user said a.' },
    { role: 'user', content: 'b' },
  ]);
  expect(summaryChunks('', undefined)).toEqual([{ type: 'finish', reason: 'stop' }]);
});

test('recorded timestamps become per-chunk delays measured from the request', () => {
  const rec = new Recording().user(1, 'hi').call(1, 1, [textChunk('a'), textChunk('b'), finishChunk()]);
  const ts = rec.events.map((_, i) => 1000 + i * 7);
  ts[4] = 1100; // first chunk, 100 ms after the request at index 3 (ts 1021)
  ts[5] = 1130;
  ts[6] = 1131;
  const [entry] = deriveReplayScript(rec.events, { timestamps: ts });
  expect(entry).toMatchObject({ delaysMs: [79, 30, 1] });
  expect(deriveReplayScript(rec.events)[0]).not.toHaveProperty('delaysMs');
});

const chunkArb: fc.Arbitrary<StreamChunk> = fc.oneof(
  fc.string().map((text) => ({ type: 'text' as const, text })),
  fc.string().map((text) => ({ type: 'reasoning' as const, text })),
  fc.record({
    type: fc.constant('tool_call_start' as const),
    index: fc.nat(3),
    id: fc.string(),
    name: fc.string(),
  }),
  fc.record({ type: fc.constant('tool_call_args' as const), index: fc.nat(3), delta: fc.string() }),
);
const finishArb = fc
  .constantFrom('stop', 'length', 'tool_calls', 'content_filter')
  .map((reason) => finishChunk(reason as 'stop'));

test('property: derived entries concatenate to the recorded chunks, each ending with exactly one finish', () => {
  // A valid log: turns of steps, each step a request, some chunks and a finish; tool events between steps.
  const logArb = fc.array(
    fc.array(fc.tuple(fc.array(chunkArb, { maxLength: 6 }), finishArb), { minLength: 1, maxLength: 3 }),
    {
      maxLength: 4,
    },
  );
  fc.assert(
    fc.property(logArb, (turns) => {
      const rec = new Recording();
      const recorded: StreamChunk[] = [];
      turns.forEach((steps, t) => {
        rec.user(t + 1, `prompt ${t}`);
        steps.forEach(([body, finish], s) => {
          rec.call(t + 1, s + 1, [...body, finish]);
          rec.push({
            type: 'tool/call',
            turn: t + 1,
            step: s + 1,
            toolCallId: `c${s}`,
            name: 'x',
            arguments: '{}',
          });
          recorded.push(...body, finish);
        });
        rec.end(t + 1);
      });
      const script = deriveReplayScript(rec.events as SessionEvent[]);
      expect(script.flatMap((e) => (e.kind === 'hang' ? [] : e.chunks))).toEqual(recorded);
      for (const e of script) {
        if (e.kind !== 'chunks') throw new Error('derived entries are chunks');
        expect(e.chunks.filter((c) => c.type === 'finish')).toHaveLength(1);
        expect(e.chunks.at(-1)!.type).toBe('finish');
      }
      expect(script).toHaveLength(turns.flat().length);
    }),
    { numRuns: 200 },
  );
});
