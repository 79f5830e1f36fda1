import {
  fingerprintRequest,
  type LlmCallContext,
  type LlmPlugin,
  type LlmRequest,
  type StreamChunk,
} from '@acp-snapshot/core';
import type { BodyEvent } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { TurnCancelled } from './abort.js';
import { callModel, type ModelCallAt } from './model-call.js';

const request = (purpose: 'turn' | 'compaction'): LlmRequest => ({
  model: 'm',
  system: 'You work in /tmp/acp-snap-1/work.',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  params: {},
  purpose,
});

/** A plugin that yields `chunks` and then, unless told to stop, keeps going (or hangs); it records what it was told. */
function plugin(chunks: unknown[], after: 'more' | 'hang' | 'end' = 'end') {
  const seen: { ctx?: LlmCallContext; returned: boolean } = { returned: false };
  const p: LlmPlugin = {
    name: 'fake',
    stream(_r, ctx) {
      seen.ctx = ctx;
      let i = 0;
      return {
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            if (i < chunks.length) return { done: false, value: chunks[i++] as StreamChunk };
            if (after === 'more')
              return { done: false, value: { type: 'text', text: 'unasked' } as StreamChunk };
            if (after === 'hang') return new Promise<IteratorResult<StreamChunk>>(() => {});
            return { done: true, value: undefined };
          },
          return: async () => {
            seen.returned = true;
            return { done: true, value: undefined };
          },
        }),
      };
    },
  };
  return { p, seen };
}

function at(p: LlmPlugin, signal = new AbortController().signal) {
  const events: BodyEvent[] = [];
  const roots = { cwd: '/tmp/acp-snap-1/work' };
  const session = {
    services: { plugin: p },
    roots,
    record: async (e: BodyEvent) => {
      events.push(e);
    },
  } as unknown as ModelCallAt['session'];
  return { at: { session, turn: 2, step: 3, signal }, events, roots };
}

const finish: StreamChunk = { type: 'finish', reason: 'stop' };

test('a call persists its fingerprinted request first, hands each chunk to the caller up to the finish, then stops the plugin', async () => {
  const { p, seen } = plugin([{ type: 'text', text: 'he' }, { type: 'text', text: 'llo' }, finish], 'more');
  const call = at(p);
  const got: StreamChunk[] = [];
  await callModel(call.at, request('compaction'), 'the compaction summary stream', (c) => {
    got.push(c);
  });
  const fingerprint = fingerprintRequest(request('compaction'), call.roots);
  expect(call.events).toEqual([
    { type: 'llm/request', turn: 2, step: 3, purpose: 'compaction', fingerprint },
  ]);
  expect(fingerprint.parts.system).toBe(
    fingerprintRequest({ ...request('turn'), system: 'You work in {{cwd}}.' }).parts.system,
  );
  expect(got).toEqual([{ type: 'text', text: 'he' }, { type: 'text', text: 'llo' }, finish]);
  expect(seen).toMatchObject({ returned: true, ctx: { turn: 2, step: 3, fingerprint } });
});

test('a stream without a finish is stream_cut and an invalid chunk malformed_chunk, for a turn and a compaction alike', async () => {
  for (const purpose of ['turn', 'compaction'] as const) {
    const cut = plugin([{ type: 'text', text: 'part' }]);
    await expect(
      callModel(at(cut.p).at, request(purpose), `the ${purpose} stream`, () => {}),
    ).rejects.toMatchObject({
      message: `the ${purpose} stream ended without a finish at turn 2 step 3 (plugin "fake")`,
      code: 'stream_cut',
    });
    const bad = plugin([{ type: 'text' }, finish]);
    await expect(callModel(at(bad.p).at, request(purpose), 'x', () => {})).rejects.toMatchObject({
      message: expect.stringMatching(/^the LLM plugin "fake" yielded an invalid chunk at turn 2 step 3: /),
      code: 'malformed_chunk',
    });
    expect(bad.seen.returned).toBe(true);
  }
});

test('an abort gives up on a plugin that ignores its signal, and still tells it to stop', async () => {
  const { p, seen } = plugin([{ type: 'text', text: 'x' }], 'hang');
  const abort = new AbortController();
  const call = callModel(at(p, abort.signal).at, request('turn'), 'the model stream', () => abort.abort());
  await expect(call).rejects.toBeInstanceOf(TurnCancelled);
  expect(seen.returned).toBe(true);
});
