// Chunk translation cases the emulator does not produce (other OpenAI-compatible providers do).
import { isLlmProviderError } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import { ChunkTranslator, mapUsage } from './openai-stream.js';

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

test('argument pieces that arrive before the id and name are held and emitted right after the start', () => {
  const t = new ChunkTranslator();
  expect(
    t.push(delta({ tool_calls: [{ index: 0, function: { name: 'grep', arguments: '{"q"' } }] })),
  ).toEqual([]);
  expect(t.push(delta({ tool_calls: [{ index: 0, id: 'x1', function: { arguments: ':1}' } }] }))).toEqual([
    { type: 'tool_call_start', index: 0, id: 'x1', name: 'grep' },
    { type: 'tool_call_args', index: 0, delta: '{"q":1}' },
  ]);
  t.push(delta({}, 'tool_calls'));
  expect(t.finish()).toEqual({ type: 'finish', reason: 'tool_calls' });
});

test('a tool call that never gets an id, and an unknown finish reason, are malformed_chunk errors', () => {
  const noId = new ChunkTranslator();
  noId.push(delta({ tool_calls: [{ index: 0, function: { name: 'grep' } }] }, 'tool_calls'));
  expect(() => noId.finish()).toThrow(/tool call 0 never got an id/);
  const odd = new ChunkTranslator();
  odd.push(delta({ content: 'x' }, 'function_call'));
  let error: unknown;
  try {
    odd.finish();
  } catch (e) {
    error = e;
  }
  expect(isLlmProviderError(error) && error.code).toBe('malformed_chunk');
  expect((error as Error).message).toContain('"function_call"');
});

test('chunks after the finish_reason chunk still count (usage), other choices and empty deltas are ignored', () => {
  const t = new ChunkTranslator();
  expect(t.push({ choices: [{ index: 1, delta: { content: 'other choice' } }] })).toEqual([]);
  expect(t.push(delta({ content: '', reasoning_content: null }))).toEqual([]);
  t.push(delta({ content: '' }, 'stop'));
  t.push({
    choices: [],
    usage: { prompt_tokens: 3, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 1 } },
  });
  expect(t.finish()).toEqual({
    type: 'finish',
    reason: 'stop',
    usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5, cachedTokens: 1 },
  });
  expect(mapUsage({ completion_tokens: 1 })).toBeUndefined();
});
