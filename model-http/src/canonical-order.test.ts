import { expect, test } from '@playwright/test';
import { canonicalOrder } from './canonical-order.js';
import { type Exchange, parseExchanges, serializeExchanges } from './exchange-log.js';
import { type ModelServer, startModelServer } from './server.js';
import { type FakeUpstream, startFakeUpstream } from './testing/fake-upstream.js';
import { rawRequest } from './testing/raw-client.js';
import { requestFor } from './testing/requests.js';

const CWD = '/tmp/acp-mh-CCCCCCCC/work';
const servers: Array<ModelServer | FakeUpstream> = [];
test.afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// claude-agent-acp's shape: the turn, and beside it a title call with its own system prompt and no tools.
const turn = (messages: unknown[]) => {
  const { path, body } = requestFor('anthropic-messages', {
    cwd: CWD,
    date: 'Tuesday, December 1, 2026',
    prompt: 'fix the failing test in 😀 src/',
    stream: true,
  });
  return { path, body: { ...body, messages, tools: [{ name: 'Read', input_schema: { type: 'object' } }] } };
};
const firstTurn = turn([{ role: 'user', content: 'fix the failing test in 😀 src/' }]);
const secondCall = turn([
  { role: 'user', content: 'fix the failing test in 😀 src/' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: CWD } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
]);
const title = {
  path: '/v1/messages',
  body: {
    model: 'claude-haiku',
    max_tokens: 32,
    stream: true,
    system: 'Write a 3-7 word title for this conversation.',
    messages: [{ role: 'user', content: 'fix the failing test in 😀 src/' }],
  },
};

/**
 * One recording: the turn's first call and the title call at once, arriving in `order`, both streaming at
 * the upstream at the same time, then the turn's second call after the first answered.
 */
async function record(order: 'turn first' | 'title first'): Promise<Exchange[]> {
  const up = await startFakeUpstream({ deltas: ['Fixing ', 'the test'], hold: true });
  servers.push(up);
  const rec = await startModelServer({
    mode: 'record',
    upstream: { baseUrl: up.url },
    normalize: { roots: { cwd: CWD } },
  });
  servers.push(rec);
  const send = (r: { path: string; body: unknown }) =>
    rawRequest(rec.url, 'POST', r.path, JSON.stringify(r.body));
  const [a, b] = order === 'turn first' ? [firstTurn, title] : [title, firstTurn];
  const first = send(a);
  await up.holding(1);
  const second = send(b);
  await up.holding(2);
  up.release();
  await Promise.all([first, second]);
  await send(secondCall);
  expect(rec.verdict()).toMatchObject({ ok: true, calls: 3 });
  const arrived = rec.exchanges.map((ex) => (ex.request.body as { system: string }).system.slice(0, 5));
  expect(arrived).toEqual(order === 'turn first' ? ['You a', 'Write', 'You a'] : ['Write', 'You a', 'You a']);
  return rec.exchanges;
}

test('a turn and its background title call recorded twice, arriving in opposite orders, give the same bytes', async () => {
  const one = serializeExchanges(await record('turn first'));
  const two = serializeExchanges(await record('title first'));
  expect(two.text).toBe(one.text);
  expect(two.sidecars).toEqual(one.sidecars);
  // The turn's calls keep their causal order in the log: the first call before the one that carries its answer.
  const logged = parseExchanges(one.text, 'exchanges.jsonl', { sidecars: one.sidecars });
  const turnCalls = logged.filter((ex) => (ex.request.body as { tools?: unknown }).tools);
  expect(turnCalls.map((ex) => (ex.request.body as { messages: unknown[] }).messages.length)).toEqual([1, 3]);

  // The canonical log replays: every call, in either arrival order, gets its own answer.
  const rep = await startModelServer({
    mode: 'replay',
    exchanges: logged,
    normalize: { roots: { cwd: CWD } },
  });
  servers.push(rep);
  const answers = await Promise.all(
    [title, firstTurn].map((r) => rawRequest(rep.url, 'POST', r.path, JSON.stringify(r.body))),
  );
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  expect((await rawRequest(rep.url, 'POST', secondCall.path, JSON.stringify(secondCall.body))).status).toBe(
    200,
  );
  expect(rep.verdict().ok).toBe(true);
});

test('exchanges with the very same request keep their given order (replay serves retries in log order)', () => {
  const exchange = (r: { path: string; body: unknown }, text: string): Exchange => ({
    request: { method: 'POST', path: r.path, body: r.body as Exchange['request']['body'] },
    response: { status: 200, headers: {}, frames: [{ text }] },
  });
  const texts = (xs: Exchange[]) => xs.map((x) => (x.response.frames[0] as { text: string }).text);
  const given = [
    exchange(secondCall, 'done'),
    exchange(title, 'overloaded'),
    exchange(title, 'Fix the test'),
  ];
  const once = texts(canonicalOrder(given));
  expect(once.filter((t) => t !== 'done')).toEqual(['overloaded', 'Fix the test']);
  // Given in another order, the retries follow it; the other exchange stays where its content puts it.
  const reversed = texts(canonicalOrder([...given].reverse()));
  expect(reversed.filter((t) => t !== 'done')).toEqual(['Fix the test', 'overloaded']);
  expect(reversed.indexOf('done')).toBe(once.indexOf('done'));
});
