import { expect, test } from '@playwright/test';
import {
  credentialHeader,
  errorEnvelope,
  streamsAnswer,
  wireFormatOf,
  wireFormatRoute,
} from './wire-format.js';

test('a path speaks its format behind any base URL; a server serves only the API routes themselves', () => {
  const paths: Array<[path: string, anywhere: string | undefined, route: string | undefined]> = [
    ['/chat/completions', 'openai-chat', 'openai-chat'],
    ['/v1/chat/completions', 'openai-chat', 'openai-chat'],
    ['/openai/v1/chat/completions?api-version=1', 'openai-chat', undefined],
    ['/v1/responses', 'openai-responses', 'openai-responses'],
    ['/responses', 'openai-responses', 'openai-responses'],
    ['/v1/messages', 'anthropic-messages', 'anthropic-messages'],
    ['/anthropic/v1/messages', 'anthropic-messages', undefined],
    ['/messages', undefined, undefined],
    ['/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', 'gemini', 'gemini'],
    ['/v1/models/gemini-2.5-flash:generateContent', 'gemini', 'gemini'],
    ['/proxy/models/gemini-2.5-flash:generateContent', 'gemini', undefined],
    ['/v1beta/models/gemini-2.5-flash:countTokens', undefined, undefined],
    ['/v1/models', undefined, undefined],
  ];
  for (const [path, anywhere, route] of paths) {
    expect(wireFormatOf(path), path).toBe(anywhere);
    expect(wireFormatRoute(path), path).toBe(route);
  }
});

test("each format's clients send the key in their own header", () => {
  expect(credentialHeader('openai-chat', 'k')).toEqual(['authorization', 'Bearer k']);
  expect(credentialHeader('openai-responses', 'k')).toEqual(['authorization', 'Bearer k']);
  expect(credentialHeader('anthropic-messages', 'k')).toEqual(['x-api-key', 'k']);
  expect(credentialHeader('gemini', 'k')).toEqual(['x-goog-api-key', 'k']);
  expect(credentialHeader(undefined, 'k')).toEqual(['authorization', 'Bearer k']);
});

test("an error is each format's own envelope, key for key, as its SDK parses it", () => {
  const e = { status: 429, message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' };
  expect(JSON.stringify(errorEnvelope('openai-chat', e))).toBe(
    '{"error":{"message":"slow down","type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"}}',
  );
  expect(JSON.stringify(errorEnvelope('openai-responses', { ...e, code: undefined }))).toBe(
    '{"error":{"message":"slow down","type":"rate_limit_error","param":null,"code":null}}',
  );
  expect(JSON.stringify(errorEnvelope('anthropic-messages', e))).toBe(
    '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}',
  );
  expect(JSON.stringify(errorEnvelope('anthropic-messages', { ...e, requestId: 'req_1' }))).toBe(
    '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"},"request_id":"req_1"}',
  );
  expect(JSON.stringify(errorEnvelope('gemini', { ...e, type: 'RESOURCE_EXHAUSTED' }))).toBe(
    '{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}',
  );
  expect(errorEnvelope(undefined, e)).toEqual(errorEnvelope('openai-chat', e));
});

test('one answer to "is this a stream" per format: the body flag, or Gemini streamGenerateContent with alt=sse', () => {
  const gemini = '/v1beta/models/gemini-2.5-pro';
  expect(streamsAnswer('gemini', `${gemini}:streamGenerateContent?alt=sse`, {})).toBe(true);
  expect(streamsAnswer('gemini', `${gemini}:streamGenerateContent?key=k&alt=sse`, {})).toBe(true);
  // Without alt=sse Gemini answers one JSON array; generateContent one answer, whatever the body says.
  expect(streamsAnswer('gemini', `${gemini}:streamGenerateContent`, {})).toBe(false);
  expect(streamsAnswer('gemini', `${gemini}:generateContent?alt=sse`, { stream: true })).toBe(false);
  for (const format of ['openai-chat', 'openai-responses', 'anthropic-messages', undefined] as const) {
    expect(streamsAnswer(format, '/v1/x', { stream: true }), String(format)).toBe(true);
    expect(streamsAnswer(format, '/v1/x?alt=sse', { stream: false }), String(format)).toBe(false);
    expect(streamsAnswer(format, '/v1/x', 'stream: true'), String(format)).toBe(false);
  }
});
