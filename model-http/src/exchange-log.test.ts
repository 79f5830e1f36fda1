import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sidecarHash } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import {
  type Exchange,
  parseExchanges,
  readExchangeLog,
  referencedSidecars,
  serializeExchanges,
  writeExchangeLog,
} from './exchange-log.js';
import type { JsonValue } from './normalize.js';

const PROMPT = `You are a coding agent.\n${'Follow the rules. '.repeat(200)}`;

const exchange = (content: string, extra: Record<string, JsonValue> = {}): Exchange => ({
  request: {
    method: 'POST',
    path: '/v1/chat/completions',
    body: {
      model: 'm',
      messages: [
        { role: 'system', content: PROMPT },
        { role: 'user', content },
      ],
      ...extra,
    },
  },
  response: {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    frames: [{ text: 'data: {"x":"你好"}\n\n', atMs: 5 }, { base64: '8J+O' }, { text: 'data: [DONE]\n\n' }],
  },
});

test('the log: a header line, then one canonical line per exchange; the bulk in sidecars shared by every exchange', () => {
  const { text, sidecars } = serializeExchanges([exchange('one'), exchange('two')]);
  const lines = text.split('\n');
  expect(lines[0]).toBe('{"format":"acp-snapshot/model-exchanges","version":1}');
  expect(lines).toHaveLength(4);
  expect(lines[3]).toBe('');
  const hashes = Object.keys(sidecars);
  expect(hashes).toHaveLength(1);
  expect(hashes[0]).toBe(sidecarHash(sidecars[hashes[0]!]!));
  expect(JSON.parse(sidecars[hashes[0]!]!)).toEqual({ text: PROMPT.split('\n') });
  expect(lines[1]).toContain(`{"content":{"sidecar":"${hashes[0]}"},"role":"system"}`);
  expect(referencedSidecars(text)).toEqual(new Set(hashes));
  expect(parseExchanges(text, 'x.jsonl', { sidecars })).toEqual([exchange('one'), exchange('two')]);
});

test('bulk moves out bottom-up: a large array of small parts goes whole, nested references resolve', () => {
  const testInfo = test.info();
  const tools = Array.from({ length: 40 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Does thing ${i} well.`,
  }));
  const ex = exchange('hi', { tools });
  const dir = testInfo.outputPath();
  writeExchangeLog(join(dir, 'exchanges.jsonl'), [ex], {
    sidecarsDir: join(dir, 'sidecars'),
    sidecarBytes: 1024,
  });
  const text = readFileSync(join(dir, 'exchanges.jsonl'), 'utf8');
  expect(text).toMatch(/"tools":\{"sidecar":"[0-9a-f]{64}"\}/);
  expect(referencedSidecars(text, join(dir, 'sidecars')).size).toBe(2);
  expect(readExchangeLog(join(dir, 'exchanges.jsonl'), { sidecars: join(dir, 'sidecars') })).toEqual([ex]);
});

const frame = fc.oneof(
  fc.record({ text: fc.string() }),
  fc.record({ base64: fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b).toString('base64')) }),
);
const arbExchange: fc.Arbitrary<Exchange> = fc.record({
  request: fc.record({
    method: fc.constantFrom('POST', 'GET'),
    path: fc.constantFrom('/v1/messages', '/v1/responses', '/v1beta/models/g:streamGenerateContent?alt=sse'),
    body: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>,
  }),
  response: fc.record({
    status: fc.integer({ min: 100, max: 599 }),
    headers: fc.dictionary(fc.constantFrom('content-type', 'retry-after-ms'), fc.string()),
    frames: fc.array(frame, { maxLength: 4 }),
  }),
});

/** The same value with every object's keys in reverse order. */
function reverseKeys(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(reverseKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .reverse()
        .map((k) => [k, reverseKeys(v[k]!)]),
    );
  return v;
}

test('property: canonical bytes, stable through a round trip and under any key order', () => {
  fc.assert(
    fc.property(
      fc.array(arbExchange, { maxLength: 3 }),
      fc.integer({ min: 16, max: 4096 }),
      (exchanges, sidecarBytes) => {
        const first = serializeExchanges(exchanges, { sidecarBytes });
        const parsed = parseExchanges(first.text, 'x.jsonl', { sidecars: first.sidecars });
        const again = serializeExchanges(parsed, { sidecarBytes });
        expect(again.text).toBe(first.text);
        expect(again.sidecars).toEqual(first.sidecars);
        const flipped = exchanges.map((e) => reverseKeys(e as unknown as JsonValue) as unknown as Exchange);
        expect(serializeExchanges(flipped, { sidecarBytes }).text).toBe(first.text);
      },
    ),
    { numRuns: 100 },
  );
});

test('errors name the file, the line, the JSON path and what to do', () => {
  const testInfo = test.info();
  const { text, sidecars } = serializeExchanges([exchange('one'), exchange('two')]);
  const lines = text.split('\n');
  const parse =
    (t: string, s: Record<string, string> = sidecars) =>
    () =>
      parseExchanges(t, 'fx/exchanges.jsonl', { sidecars: s });
  expect(parse('{"format":"other","version":1}\n')).toThrow(
    'fx/exchanges.jsonl:1: format: Invalid input: expected "acp-snapshot/model-exchanges"',
  );
  expect(parse(`${lines[0]}\n${lines[1]}\n{oops\n`)).toThrow(
    /^fx\/exchanges\.jsonl:3: \(line\): not valid JSON/,
  );
  const badFrame = lines[2]!.replace('"atMs":5', '"atMs":-1');
  expect(parse(`${lines[0]}\n${lines[1]}\n${badFrame}\n`)).toThrow(
    'fx/exchanges.jsonl:3: response.frames[0]',
  );
  const badStatus = lines[1]!.replace('"status":200', '"status":"200"');
  expect(parse(`${lines[0]}\n${badStatus}\n`)).toThrow(
    'fx/exchanges.jsonl:2: response.status: Invalid input: expected number, received string; re-record the scenario',
  );
  expect(parse(text, {})).toThrow(
    /^fx\/exchanges\.jsonl:2: request\.body\.messages\[0\]\.content: sidecar [0-9a-f]{64} is missing/,
  );
  const hash = Object.keys(sidecars)[0]!;
  const dir = testInfo.outputPath();
  writeFileSync(join(dir, `${hash}.json`), sidecars[hash]!.replace('coding', 'Coding'));
  expect(() =>
    parseExchanges(text, 'fx/exchanges.jsonl', { sidecars: dir, fix: 'run `npm run record -- x`' }),
  ).toThrow(
    `fx/exchanges.jsonl:2: request.body.messages[0].content: ${join(dir, `${hash}.json`)}: content does not match its sha256 name (edited by hand?); run \`npm run record -- x\``,
  );
});

test('a body key named __proto__ survives writing and reading (found by the property above)', () => {
  const body = JSON.parse('{"__proto__":{"a":1},"b":[{"__proto__":2}]}') as JsonValue;
  const ex: Exchange = {
    request: { method: 'POST', path: '/x', body },
    response: { status: 200, headers: {}, frames: [] },
  };
  const first = serializeExchanges([ex]);
  expect(first.text).toContain('{"body":{"__proto__":{"a":1},"b":[{"__proto__":2}]}');
  expect(serializeExchanges(parseExchanges(first.text, 'x.jsonl', { sidecars: {} })).text).toBe(first.text);
});
