import { type ChatMessage, fingerprintRequest } from '@acp-snapshot/core';
import {
  buildHeader,
  finishChunk,
  llmRequest,
  makeRecords,
  messageCommitted,
  type SessionEvent,
  serializeLog,
  textChunk,
  turnEnd,
  turnStart,
  userMessage,
} from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { type CallReview, compactParts, type FixtureTexts, ReviewError, reviewScenario } from './review.js';
import { formatReview, NONDETERMINISM } from './review-format.js';

const USAGE = { promptTokens: 10, completionTokens: 3, totalTokens: 13 };

interface Turn {
  user: string;
  /** The model's answer, streamed in these chunks. */
  answer: string[];
  usage?: typeof USAGE;
}

/** A session log of one model call per turn, each request fingerprinted as the agent does it. */
function session(turns: readonly Turn[], system = 'You are a test agent.'): string {
  const events: SessionEvent[] = [buildHeader({ systemPrompt: system })];
  const messages: ChatMessage[] = [];
  turns.forEach((t, i) => {
    const turn = i + 1;
    const user: ChatMessage = { role: 'user', content: t.user };
    messages.push(user);
    const fp = fingerprintRequest({
      model: 'm',
      system,
      messages,
      tools: [],
      params: {},
      purpose: 'turn',
    });
    const answer: ChatMessage = { role: 'assistant', content: t.answer.join('') };
    messages.push(answer);
    events.push(turnStart(turn), userMessage(turn, t.user), llmRequest(turn, 1, fp));
    for (const c of t.answer) events.push({ type: 'assistant/chunk', turn, step: 1, chunk: textChunk(c) });
    events.push(
      { type: 'assistant/chunk', turn, step: 1, chunk: finishChunk('stop', t.usage ?? USAGE) },
      messageCommitted(turn, answer),
      turnEnd(turn),
    );
  });
  return serializeLog(makeRecords(events));
}

const names = (v: string) => ({
  session: `${v}:scenarios/s/session.jsonl`,
  override: `${v}:scenarios/s/replay.override.json`,
});
const review = (old: FixtureTexts, next: FixtureTexts) =>
  reviewScenario('s', { texts: old, names: names('HEAD') }, { texts: next, names: names('work') });

const HELLO: Turn = { user: 'Say hello.', answer: ['Hello', ' there.'] };
const NAME: Turn = { user: 'Name a colour.', answer: ['Blue.'] };

function compared(c: CallReview | undefined) {
  if (c?.status !== 'compared') throw new Error(`expected a compared call, got ${JSON.stringify(c)}`);
  return c;
}

test('the same log twice: every call unchanged, nothing flagged', () => {
  const r = review({ session: session([HELLO, NAME]) }, { session: session([HELLO, NAME]) });
  expect(r.flagged).toEqual([]);
  expect(r.calls.map((c) => [c.call, c.label, compared(c).request.kind, compared(c).response.kind])).toEqual([
    [1, 'turn 1 step 1', 'unchanged', 'unchanged'],
    [2, 'turn 2 step 1', 'unchanged', 'unchanged'],
  ]);
});

test('the same request answered differently is flagged; the next request changes by that answer, not flagged', () => {
  const r = review(
    { session: session([HELLO, NAME]) },
    { session: session([{ ...HELLO, answer: ['Howdy', ' there.'] }, NAME]) },
  );
  expect(r.flagged).toEqual([1]);
  const first = compared(r.calls[0]);
  expect(first.request).toEqual({ kind: 'unchanged' });
  expect(first.response).toEqual({
    kind: 'changed',
    diff: ['text: "[-Hello-]{+Howdy+} there."'],
    overridden: false,
  });
  // Call 2 carries call 1's answer as messages[1]: its request changed, so it is not nondeterminism.
  const second = compared(r.calls[1]);
  expect(second.request).toEqual({ kind: 'changed', parts: ['messages[1]'] });
  expect(second.flagged).toBe(false);
});

test('a changed request with a changed answer is not flagged, and names the part that changed', () => {
  const r = review(
    { session: session([HELLO]) },
    { session: session([{ ...HELLO, answer: ['Hi.'] }], 'You are a terse test agent.') },
  );
  expect(r.flagged).toEqual([]);
  const c = compared(r.calls[0]);
  expect(c.request).toEqual({ kind: 'changed', parts: ['system'] });
  expect(c.response.kind).toBe('changed');
});

test('chunking and token usage: a re-split stream is a changed answer, other token counts are not', () => {
  const split = review(
    { session: session([HELLO]) },
    { session: session([{ ...HELLO, answer: ['Hello there.'] }]) },
  );
  expect(compared(split.calls[0]).response).toEqual({
    kind: 'changed',
    diff: ['the same answer, streamed in different chunks'],
    overridden: false,
  });
  expect(split.flagged).toEqual([1]);
  const usage = review(
    { session: session([HELLO]) },
    { session: session([{ ...HELLO, usage: { ...USAGE, promptTokens: 11, totalTokens: 14 } }]) },
  );
  expect(compared(usage.calls[0]).response).toEqual({ kind: 'usage' });
  expect(usage.flagged).toEqual([]);
});

test('calls added and removed are reported with their answers', () => {
  const added = review({ session: session([HELLO]) }, { session: session([HELLO, NAME]) });
  expect(added.calls[1]).toEqual({
    call: 2,
    label: 'turn 2 step 1',
    status: 'added',
    lines: ['text: "Blue."', 'finish: stop'],
  });
  const removed = review({ session: session([HELLO, NAME]) }, { session: session([HELLO]) });
  expect(removed.calls[1]).toMatchObject({ call: 2, status: 'removed' });
  expect(review({}, { session: session([HELLO]) }).calls.map((c) => c.status)).toEqual(['added']);
});

const override = (text: string) =>
  JSON.stringify({
    calls: [
      {
        kind: 'throw',
        turn: 1,
        step: 1,
        chunks: [{ type: 'text', text }],
        code: 'stream_cut',
        message: 'cut',
      },
    ],
  });

test('an override is the response: a re-recorded log under it changes nothing, an edited override is not flagged', () => {
  const under = review(
    { session: session([HELLO]), override: override('Hel') },
    { session: session([{ ...HELLO, answer: ['Howdy'] }]), override: override('Hel') },
  );
  expect(compared(under.calls[0]).response).toEqual({ kind: 'unchanged' });
  expect(compared(under.calls[0]).request).toEqual({ kind: 'unchanged' });
  const edited = review(
    { session: session([HELLO]), override: override('Hel') },
    { session: session([HELLO]), override: override('How') },
  );
  expect(compared(edited.calls[0]).response).toEqual({
    kind: 'changed',
    diff: ['text: "[-Hel-]{+How+}"'],
    overridden: true,
  });
  expect(edited.flagged).toEqual([]);
});

test('an unreadable version is a ReviewError naming the file and line', () => {
  const text = session([HELLO]).replace('"turn":1}', '"turn":"one"}');
  expect(() => review({ session: text }, { session: session([HELLO]) })).toThrow(ReviewError);
  expect(() => review({ session: text }, { session: session([HELLO]) })).toThrow(
    /^HEAD:scenarios\/s\/session\.jsonl:2/,
  );
  expect(() => review({ session: session([HELLO]), override: '{' }, { session: session([HELLO]) })).toThrow(
    /^HEAD:scenarios\/s\/replay\.override\.json: not valid JSON/,
  );
});

test('the text: flagged calls first, with what they mean and what to do, then one row per call', () => {
  const r = review(
    { session: session([HELLO, NAME]) },
    { session: session([{ ...HELLO, answer: ['Howdy', ' there.'] }, NAME, NAME]) },
  );
  expect(formatReview(r, 'Record it again.').split('\n')).toEqual([
    's: 3 model call(s): 1 flagged, 1 request(s) changed, 1 response(s) changed, 1 added',
    '  FLAGGED s call 1 (turn 1 step 1): the response changed while the request did not:',
    '      text: "[-Hello-]{+Howdy+} there."',
    `  ${NONDETERMINISM}`,
    '  Record it again.',
    '  call  at             request               response',
    '  1     turn 1 step 1  unchanged             changed  <- FLAGGED',
    '  2     turn 2 step 1  changed: messages[1]  unchanged',
    '  3     turn 3 step 1  (added)               text: "Blue."; finish: stop',
  ]);
});

test('a longer conversation is one range of messages', () => {
  expect(compactParts(['system', 'messages[1]', 'messages[2]', 'messages[3]', 'messages[5]'])).toEqual([
    'system',
    'messages[1..3]',
    'messages[5]',
  ]);
});
