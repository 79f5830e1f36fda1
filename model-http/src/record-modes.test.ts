import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import OpenAI from 'openai';
import { type Exchange, parseExchanges, serializeExchanges } from './exchange-log.js';
import { exchangeLogChanges, formatLogChanges } from './log-changes.js';
import { type ModelServer, startModelServer } from './server.js';
import { type FakeUpstream, startFakeUpstream } from './testing/fake-upstream.js';

const CWD = '/tmp/acp-mh-MMMMMMMM/work';
const normalize = { roots: { cwd: CWD } };
const servers: Array<ModelServer | FakeUpstream> = [];
test.afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function upstream(answer: string): Promise<FakeUpstream> {
  // The answer quotes the cwd and splits an emoji and CJK over frames, as a real model streams.
  const up = await startFakeUpstream({ deltas: [`${answer} in ${CWD} 👋`, '你', '好'], split: true });
  servers.push(up);
  return up;
}

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** A three-turn chat through `url` with the openai SDK, each turn carrying the answers before it. */
async function threeTurns(url: string, prompts: string[]): Promise<string[]> {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'dummy', maxRetries: 0 });
  const messages: Message[] = [{ role: 'system', content: `You work in ${CWD}.` }];
  const answers: string[] = [];
  for (const prompt of prompts) {
    messages.push({ role: 'user', content: prompt });
    const stream = await client.chat.completions.create({ model: 'qwen-x', stream: true, messages });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    messages.push({ role: 'assistant', content: text });
    answers.push(text);
  }
  return answers;
}

const PROMPTS = ['list the files', 'read notes.txt', 'summarize it in one line'];

/** The test recorded once (`record`), written as its log would be. */
async function firstRecording(): Promise<string> {
  const up = await upstream('first recording');
  const rec = await startModelServer({ mode: 'record', upstream: { baseUrl: up.url }, normalize });
  servers.push(rec);
  await threeTurns(rec.url, PROMPTS);
  expect(rec.verdict().ok).toBe(true);
  return serializeExchanges(rec.exchanges).text;
}

test('missing: a changed third prompt goes upstream alone; the first two turns are served from the log and stay byte for byte', async () => {
  const before = await firstRecording();
  const old = parseExchanges(before, 'exchanges.jsonl', { sidecars: {} });
  const up = await upstream('second recording');
  const rec = await startModelServer({
    mode: 'missing',
    exchanges: old,
    upstream: { baseUrl: up.url },
    normalize,
  });
  servers.push(rec);
  const answers = await threeTurns(rec.url, [PROMPTS[0]!, PROMPTS[1]!, 'summarize it in three words']);
  // Turns 1 and 2 were answered from the log, turn 3 by the upstream: the only request it got.
  expect(answers.map((a) => a.split(' in ')[0])).toEqual([
    'first recording',
    'first recording',
    'second recording',
  ]);
  expect(up.requests).toHaveLength(1);
  expect(up.requests[0]!.body).toContain('summarize it in three words');
  expect(rec.calls).toBe(3);
  expect(rec.verdict()).toMatchObject({ ok: true, calls: 3 });

  const after = serializeExchanges(rec.exchanges).text;
  const oldLines = before.split('\n');
  const newLines = after.split('\n');
  expect(newLines.slice(0, 3)).toEqual(oldLines.slice(0, 3));
  expect(newLines[3]).not.toBe(oldLines[3]);
  expect(newLines[3]).toContain('summarize it in three words');
  expect(newLines[3]).toContain('{{cwd}}');
  expect(newLines[3]).not.toContain(CWD);

  const changes = exchangeLogChanges(before, after);
  expect(changes.kept.map((e) => e.index)).toEqual([0, 1]);
  expect(changes.added.map((e) => e.index)).toEqual([2]);
  expect(changes.removed.map((e) => e.index)).toEqual([2]);
  expect(formatLogChanges(changes, '')).toEqual([
    'kept 2, re-recorded 0, added 1, removed 1',
    '  kept: exchange 0 POST /v1/chat/completions "list the files"',
    '  kept: exchange 1 POST /v1/chat/completions "read notes.txt"',
    '  added: exchange 2 POST /v1/chat/completions "summarize it in three words"',
    '  removed: exchange 2 of the old log POST /v1/chat/completions "summarize it in one line"',
  ]);
});

test('missing: run again with nothing changed, it sends nothing upstream and writes the same bytes', async () => {
  const testInfo = test.info();
  const file = join(testInfo.outputPath(), 'exchanges.jsonl');
  writeFileSync(file, await firstRecording());
  const up = await upstream('never asked');
  const again = await startModelServer({
    mode: 'missing',
    exchanges: parseExchanges(readFileSync(file, 'utf8'), file, { sidecars: {} }),
    upstream: { baseUrl: up.url },
    normalize,
  });
  servers.push(again);
  await threeTurns(again.url, PROMPTS);
  expect(up.requests).toHaveLength(0);
  const text = serializeExchanges(again.exchanges).text;
  expect(text).toBe(readFileSync(file, 'utf8'));
  expect(exchangeLogChanges(readFileSync(file, 'utf8'), text)).toMatchObject({ added: [], removed: [] });
});

test('missing: recorded exchanges nothing asked for are removed, unless optional (a background call that may not come)', async () => {
  const before = await firstRecording();
  const old = parseExchanges(before, 'exchanges.jsonl', { sidecars: {} });
  const up = await upstream('unused');
  const rec = await startModelServer({
    mode: 'missing',
    exchanges: old,
    upstream: { baseUrl: up.url },
    normalize,
    optional: (ex: Exchange) => JSON.stringify(ex.request.body).includes('summarize it in one line'),
  });
  servers.push(rec);
  // Only the first turn this time: turn 2 goes, turn 3 is optional and stays.
  await threeTurns(rec.url, [PROMPTS[0]!]);
  expect(up.requests).toHaveLength(0);
  const changes = exchangeLogChanges(before, serializeExchanges(rec.exchanges).text);
  expect(changes.kept).toHaveLength(2);
  expect(changes.removed.map((e) => e.label)).toEqual(['POST /v1/chat/completions "read notes.txt"']);
  expect(rec.verdict().ok).toBe(true);
});

test('all: the whole test goes upstream again; same requests with new answers read as re-recorded', async () => {
  const before = await firstRecording();
  const up = await upstream('second recording');
  const rec = await startModelServer({ mode: 'record', upstream: { baseUrl: up.url }, normalize });
  servers.push(rec);
  await threeTurns(rec.url, PROMPTS);
  expect(up.requests).toHaveLength(3);
  const changes = exchangeLogChanges(before, serializeExchanges(rec.exchanges).text);
  // The answers differ, so turn 2's and 3's requests (which carry them) are new; turn 1's is the same request.
  expect(changes).toMatchObject({ kept: [], rerecorded: [{ index: 0 }] });
  expect(changes.added).toHaveLength(2);
  expect(changes.removed).toHaveLength(2);
});
