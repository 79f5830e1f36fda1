import { expect, test } from '@playwright/test';
import { canonicalJson, differingParts, fingerprintRequest, firstDifferingPart } from './fingerprint.js';
import type { LlmRequest } from './llm.js';

const base: LlmRequest = {
  model: 'm',
  system: 'You work in /tmp/run-1/cwd.',
  messages: [
    { role: 'user', content: 'read /tmp/run-1/cwd/a.txt' },
    { role: 'assistant', content: 'ok' },
  ],
  tools: [],
  params: { temperature: 0 },
  purpose: 'turn',
};

test('a recording in one cwd matches a replay in another once roots are replaced', () => {
  const other = JSON.parse(JSON.stringify(base).replaceAll('/tmp/run-1/cwd', '/var/x/other')) as LlmRequest;
  expect(fingerprintRequest(base, { cwd: '/tmp/run-1/cwd' })).toEqual(
    fingerprintRequest(other, { cwd: '/var/x/other' }),
  );
  expect(fingerprintRequest(base).hash).not.toBe(fingerprintRequest(other).hash);
});

test('the first differing part names the message index', () => {
  const changed: LlmRequest = {
    ...base,
    messages: [base.messages[0]!, { role: 'assistant', content: 'ok!' }],
  };
  expect(firstDifferingPart(fingerprintRequest(base), fingerprintRequest(changed))).toBe('messages[1]');
  expect(firstDifferingPart(fingerprintRequest(base), fingerprintRequest({ ...base, system: 'x' }))).toBe(
    'system',
  );
  expect(firstDifferingPart(fingerprintRequest(base), fingerprintRequest(base))).toBeUndefined();
});

test('every differing part is listed in request order, a longer conversation by each new message', () => {
  const changed: LlmRequest = {
    ...base,
    system: 'other',
    messages: [base.messages[0]!, { role: 'assistant', content: 'ok!' }, { role: 'user', content: 'more' }],
  };
  expect(differingParts(fingerprintRequest(base), fingerprintRequest(changed))).toEqual([
    'system',
    'messages[1]',
    'messages[2]',
  ]);
  expect(differingParts(fingerprintRequest(base), fingerprintRequest(base))).toEqual([]);
  const f = fingerprintRequest(base);
  expect(differingParts(f, { ...f, hash: 'other' })).toEqual(['hash']);
});

test('key order does not change the fingerprint', () => {
  const reordered = {
    purpose: 'turn',
    params: { temperature: 0 },
    tools: [],
    messages: base.messages,
    system: base.system,
    model: 'm',
  } as LlmRequest;
  expect(fingerprintRequest(reordered)).toEqual(fingerprintRequest(base));
});

test('a `__proto__` key in a tool argument is part of the request, not dropped', () => {
  const withKey = (value: string): LlmRequest => ({
    ...base,
    messages: [...base.messages, JSON.parse(`{"role":"user","content":"x","__proto__":{"v":"${value}"}}`)],
  });
  expect(canonicalJson(withKey('a'))).toContain('"__proto__":{"v":"a"}');
  expect(fingerprintRequest(withKey('a')).parts.messages).not.toEqual(
    fingerprintRequest(withKey('b')).parts.messages,
  );
});
