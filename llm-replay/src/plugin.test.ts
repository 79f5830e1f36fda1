import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fingerprintRequest,
  formatReplayReport,
  isLlmProviderError,
  type LlmPlugin,
  type StreamChunk,
} from '@acp-snapshot/core';
import { finishChunk, makeRecords, projectLog, serializeLog, textChunk } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { createPlugin } from './index.js';
import { drain, logSink, Recording, tempDir, writeLog } from './test-support.js';

const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };

/** Two turns, three calls (turn 2 runs a tool round). */
function threeCalls(roots = {}): Recording {
  return new Recording(roots)
    .user(1, 'hi')
    .call(1, 1, [textChunk('Hel'), textChunk('lo'), finishChunk('stop', usage)])
    .end(1)
    .user(2, 'list files')
    .call(2, 1, [
      { type: 'tool_call_start', index: 0, id: 'c1', name: 'glob' },
      { type: 'tool_call_args', index: 0, delta: '{"pattern":"*"}' },
      finishChunk('tool_calls'),
    ])
    .push({
      type: 'message/committed',
      turn: 2,
      message: { role: 'tool', toolCallId: 'c1', content: 'a.ts' },
    })
    .call(2, 2, [textChunk('a.ts'), finishChunk()])
    .end(2);
}

async function plugin(options: Record<string, unknown>, env: Record<string, string | undefined> = {}) {
  const sink = logSink();
  const p = await createPlugin({ options: { scenario: 'hello', ...options }, env, log: sink.log });
  return { plugin: p, lines: sink.lines };
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof Error)) throw new Error('expected a rejection');
  return e;
}

test('serves a recorded session call by call and reports what it consumed', async () => {
  const rec = threeCalls();
  const fixture = writeLog(tempDir(), rec.events);
  const { plugin: p, lines } = await plugin({ fixture });
  expect(p.name).toBe('replay');
  const replay = new Recording();
  replay.user(1, 'hi');
  expect(await drain(p, replay.request(), 1, 1)).toEqual([
    textChunk('Hel'),
    textChunk('lo'),
    finishChunk('stop', usage),
  ]);
  replay
    .push({ type: 'message/committed', turn: 1, message: { role: 'assistant', content: 'Hello' } })
    .end(1)
    .user(2, 'list files');
  expect((await drain(p, replay.request(), 2, 1)).at(-1)).toEqual(finishChunk('tool_calls'));
  replay.push({ type: 'message/committed', turn: 2, message: { role: 'assistant', content: '' } }).push({
    type: 'message/committed',
    turn: 2,
    message: { role: 'tool', toolCallId: 'c1', content: 'a.ts' },
  });
  expect(await drain(p, replay.request(), 2, 2)).toEqual([textChunk('a.ts'), finishChunk()]);
  await p.close!();
  await p.close!();
  // One line as each call is claimed (a process killed mid-turn has still reported), one at close.
  expect(lines).toEqual([
    'llm-replay: {"scenario":"hello","consumed":[1],"total":3}',
    'llm-replay: {"scenario":"hello","consumed":[1,2],"total":3}',
    'llm-replay: {"scenario":"hello","consumed":[1,2,3],"total":3}',
    'llm-replay: {"scenario":"hello","consumed":[1,2,3],"total":3}',
  ]);
});

test('drift: a changed prompt fails call N with the part, recorded vs live text and the refresh command', async () => {
  const rec = threeCalls({ cwd: '/tmp/rec' });
  const fixture = writeLog(tempDir(), rec.events);
  const { plugin: p, lines } = await plugin({ fixture });
  const live = new Recording().user(1, 'hi there');
  const err = await rejection(drain(p, live.request(), 1, 1, { cwd: '/tmp/live' }));
  expect(isLlmProviderError(err)).toBe(true);
  expect(err).toMatchObject({ code: 'replay', replayError: 'ReplayDriftError' });
  expect(err.message).toBe(
    `ReplayDriftError: scenario "hello": model call 1 of 3 (turn 1 step 1) sends a different request than the recording ` +
      `(event 4 of ${fixture}): first differing part messages[0].content\n` +
      '  messages[0].content (user message):\n' +
      '    recorded (2 chars): "hi"\n' +
      '    live     (8 chars): "hi there"\n' +
      '    (first difference at character 2)\n' +
      'If the change was intended, run `npm run refresh -- hello` to re-derive the recording from the current code.',
  );
  // On stderr: the drift as data in the report the harness reads, then the error line by line.
  expect(lines).toEqual([
    formatReplayReport({
      scenario: 'hello',
      consumed: [],
      total: 3,
      drift: { part: 'messages[0]', path: 'messages[0].content', recorded: 'hi', live: 'hi there' },
    }),
    ...err.message.split('\n').map((l) => `llm-replay: ${l}`),
  ]);
  await p.close!();
  expect(lines.at(-1)).toBe(
    'llm-replay note: scenario hello: 3 recorded model calls were never made (calls 1, 2, 3) by this agent process',
  );
});

test("hydration: recorded placeholders, whole or sliced over chunks, are served as this run's paths", async () => {
  const recCwd = '/tmp/acp-snap-0a1b2c3d-AAAAAA/work';
  const rec = new Recording({ cwd: recCwd }).user(1, 'read it');
  // The model streamed the cwd in pieces (as the projection stores them) and used it in the tool arguments.
  rec.call(1, 1, [
    textChunk('Reading {{cwd[0:9]}}'),
    textChunk('{{cwd[9:]}}/a.txt.'),
    { type: 'tool_call_start', index: 0, id: 'c1', name: 'read_file' },
    { type: 'tool_call_args', index: 0, delta: '{"path":"{{cwd}}/a.txt"}' },
    finishChunk('tool_calls'),
  ]);
  const fixture = writeLog(tempDir(), rec.events);
  const { plugin: p } = await plugin({ fixture });
  const live = { cwd: '/tmp/acp-snap-0a1b2c3d-BBBBBB/work' };
  const served = await drain(p, new Recording().user(1, 'read it').request(), 1, 1, live);
  expect(served.slice(0, 2)).toEqual([
    textChunk('Reading /tmp/acp-'),
    textChunk('snap-0a1b2c3d-BBBBBB/work/a.txt.'),
  ]);
  expect(served[3]).toEqual({ type: 'tool_call_args', index: 0, delta: `{"path":"${live.cwd}/a.txt"}` });
});

test('drift of a projected system prompt shows the recorded text from its sidecar', async () => {
  const dir = tempDir();
  const rec = threeCalls({ cwd: '/tmp/rec' });
  const projected = projectLog(makeRecords(rec.events), { roots: {} });
  const sidecars = join(dir, 'sidecars');
  mkdirSync(sidecars);
  for (const [hash, content] of Object.entries(projected.sidecars))
    writeFileSync(join(sidecars, `${hash}.json`), content);
  const fixture = join(dir, 'session.jsonl');
  writeFileSync(fixture, projected.text);
  const { plugin: p } = await plugin({ fixture }, { ACP_SNAPSHOT_SIDECARS: sidecars });
  const live = new Recording().user(1, 'hi');
  const request = { ...live.request(), system: `${live.request().system} Always answer in French.` };
  const err = await rejection(drain(p, request, 1, 1));
  expect(err.message).toContain('first differing part system\n  the system prompt changed (first hunk');
  expect(err.message).toContain('    ~Work only inside the current directory.{+ Always answer in French.+}');
  // Without the sidecars directory the text is unknown, and the message says only the hashes.
  const { plugin: blind } = await plugin({ fixture });
  const err2 = await rejection(drain(blind, request, 1, 1));
  expect(err2.message).toMatch(/the system prompt changed \(recorded hash \w+, live \w+\)/);
});

test('exhausted: one call more than recorded names the call index and the recorded count', async () => {
  const rec = new Recording().user(1, 'hi').call(1, 1, [textChunk('x'), finishChunk('tool_calls')]);
  const fixture = writeLog(tempDir(), rec.events);
  const { plugin: p } = await plugin({ fixture });
  const live = new Recording().user(1, 'hi');
  await drain(p, live.request(), 1, 1);
  live.push({ type: 'message/committed', turn: 1, message: { role: 'assistant', content: 'x' } });
  const err = await rejection(drain(p, live.request(), 1, 2));
  expect(err).toMatchObject({ code: 'replay', replayError: 'ReplayExhaustedError' });
  expect(err.message).toMatch(
    new RegExp(
      `^ReplayExhaustedError: scenario "hello": the agent made model call 2 \\(turn 1 step 2\\) but ${fixture} holds only 1 recorded model call\\. ` +
        'The agent now makes more model calls than were recorded\\. If that is intended, re-record the scenario: `npm run record -- hello`',
    ),
  );
});

test('calls left unused are reported at close, in the line the harness reads and in words', async () => {
  const fixture = writeLog(tempDir(), threeCalls().events);
  const { plugin: p, lines } = await plugin({ fixture });
  await drain(p, new Recording().user(1, 'hi').request(), 1, 1);
  await p.close!();
  expect(lines).toEqual([
    'llm-replay: {"scenario":"hello","consumed":[1],"total":3}',
    'llm-replay: {"scenario":"hello","consumed":[1],"total":3}',
    'llm-replay note: scenario hello: 2 recorded model calls were never made (calls 2, 3) by this agent process',
  ]);
});

test('a second agent process seeks the first call recorded at its turn, step and purpose', async () => {
  const fixture = writeLog(tempDir(), threeCalls().events);
  const { plugin: p, lines } = await plugin({ fixture });
  // The session was loaded: the conversation is what the first process persisted.
  const loaded = new Recording()
    .user(1, 'hi')
    .push({ type: 'message/committed', turn: 1, message: { role: 'assistant', content: 'Hello' } })
    .end(1)
    .user(2, 'list files');
  expect((await drain(p, loaded.request(), 2, 1)).at(-1)).toEqual(finishChunk('tool_calls'));
  await p.close!();
  expect(lines[0]).toBe('llm-replay: {"scenario":"hello","consumed":[2],"total":3}');
});

test('a call at another position than recorded is a drift naming both positions', async () => {
  const fixture = writeLog(tempDir(), threeCalls().events);
  const { plugin: p } = await plugin({ fixture });
  const live = new Recording().user(1, 'hi');
  await drain(p, live.request(), 1, 1);
  live.push({ type: 'message/committed', turn: 1, message: { role: 'assistant', content: 'Hello' } });
  const err = await rejection(drain(p, live.request(), 1, 2));
  expect(err.message).toMatch(
    /^ReplayDriftError: scenario "hello": model call 2 of 3 is made at turn 1 step 2, but the recording made it at turn 2 step 1 \(event 12 of .*\)\. The agent's model calls no longer line up with the recording\./,
  );
  const fresh = (await plugin({ fixture })).plugin;
  const first = await rejection(drain(fresh, live.request(), 1, 7));
  expect(first.message).toContain('the agent made its first model call at turn 1 step 7, but');
  expect(first.message).toContain(
    'records no call there (recorded: call 1: turn 1 step 1; call 2: turn 2 step 1; call 3: turn 2 step 2)',
  );
});

test('refresh mode ignores request content but still checks positions', async () => {
  const fixture = writeLog(tempDir(), threeCalls().events);
  const { plugin: p } = await plugin({ fixture }, { ACP_SNAPSHOT_MODE: 'refresh' });
  const changed = new Recording().user(1, 'a different prompt');
  expect((await drain(p, changed.request(), 1, 1)).length).toBe(3);
  const err = await rejection(drain(p, changed.request(), 1, 2));
  expect(err.message).toContain(
    'model call 2 of 3 is made at turn 1 step 2, but the recording made it at turn 2 step 1',
  );
});

test('the mode comes from the options the overlay passes, before the environment', async () => {
  const fixture = writeLog(tempDir(), threeCalls().events);
  const changed = new Recording().user(1, 'a different prompt');
  const { plugin: refresh } = await plugin({ fixture, mode: 'refresh' }, { ACP_SNAPSHOT_MODE: 'replay' });
  expect((await drain(refresh, changed.request(), 1, 1)).length).toBe(3);
  const { plugin: replay } = await plugin({ fixture, mode: 'replay' }, { ACP_SNAPSHOT_MODE: 'refresh' });
  expect((await rejection(drain(replay, changed.request(), 1, 1))).message).toContain('a different prompt');
});

test('one stream at a time: a second concurrent call is an error', async () => {
  const fixture = writeLog(tempDir(), threeCalls().events);
  const { plugin: p } = await plugin({ fixture });
  const live = new Recording().user(1, 'hi');
  const it = p
    .stream(live.request(), {
      signal: new AbortController().signal,
      turn: 1,
      step: 1,
      fingerprint: fingerprintRequest(live.request()),
    })
    [Symbol.asyncIterator]();
  expect((await it.next()).value).toEqual(textChunk('Hel'));
  const err = await rejection(drain(p, live.request(), 2, 1));
  expect(err).toMatchObject({ code: 'replay', replayError: 'ReplayConcurrencyError' });
  expect(err.message).toBe(
    'ReplayConcurrencyError: scenario "hello": a model call at turn 2 step 1 started while call 1 (turn 1 step 1) is still streaming; ' +
      'llm-replay serves one stream at a time (concurrent sessions cannot be replayed yet).',
  );
  // The first call is unaffected and, once finished, frees the slot.
  expect((await it.next()).value).toEqual(textChunk('lo'));
  expect((await it.next()).value).toEqual(finishChunk('stop', usage));
});

function overrideFile(calls: unknown[]): string {
  const file = join(tempDir(), 'replay.override.json');
  writeFileSync(file, JSON.stringify({ calls }));
  return file;
}

test('throw: prefix chunks then the provider error with the recorded code, status and message', async () => {
  const override = overrideFile([
    {
      kind: 'throw',
      code: 'unauthorized',
      status: 401,
      message: 'model provider returned HTTP 401 (unauthorized): bad key',
    },
    {
      kind: 'throw',
      chunks: [{ type: 'text', text: 'Partial' }],
      code: 'stream_cut',
      message: 'the model stream was cut',
    },
  ]);
  const { plugin: p } = await plugin({ override });
  const live = new Recording().user(1, 'hi');
  const first = await rejection(drain(p, live.request(), 1, 1));
  expect(isLlmProviderError(first)).toBe(true);
  expect(first).toMatchObject({
    code: 'unauthorized',
    status: 401,
    message: 'model provider returned HTTP 401 (unauthorized): bad key',
  });
  const got: StreamChunk[] = [];
  const second = await rejection(
    (async () => {
      for await (const c of p.stream(live.request(), {
        signal: new AbortController().signal,
        turn: 2,
        step: 1,
        fingerprint: fingerprintRequest(live.request()),
      }))
        got.push(c);
    })(),
  );
  expect(got).toEqual([textChunk('Partial')]);
  expect(second).toMatchObject({
    name: 'LlmProviderError',
    code: 'stream_cut',
    message: 'the model stream was cut',
  });
  expect((second as { status?: number }).status).toBeUndefined();
});

test('override entries with a fingerprint are drift-checked; their position comes from the override', async () => {
  const rec = new Recording().user(1, 'hi');
  const fp = fingerprintRequest(rec.request());
  const fixture = writeLog(tempDir(), rec.call(1, 1, [], false).events);
  const override = overrideFile([{ kind: 'hang', turn: 1, step: 1, fingerprint: fp }]);
  const { plugin: p } = await plugin({ fixture, override });
  const err = await rejection(drain(p, new Recording().user(1, 'bye').request(), 1, 1));
  expect(err.message).toContain(
    `model call 1 of 1 (turn 1 step 1) sends a different request than the recording (calls[0] of ${override}): first differing part messages[0].content`,
  );
  expect(err.message).toContain('recorded (2 chars): "hi"');
  // Given as a bare hash, the fingerprint the fixture records in full still locates the part.
  const byHash = overrideFile([{ kind: 'hang', turn: 1, step: 1, fingerprint: fp.hash }]);
  const { plugin: p2 } = await plugin({ fixture, override: byHash });
  const err2 = await rejection(drain(p2, new Recording().user(1, 'bye').request(), 1, 1));
  expect(err2.message).toContain('first differing part messages[0].content');
});

test('recorded timing replays capped gaps from a raw log and falls back to none for projected fixtures', async () => {
  const rec = new Recording().user(1, 'hi').call(1, 1, [textChunk('a'), textChunk('b'), finishChunk()]);
  // The request at event index 3; the first chunk 10 s later (capped to 50 ms), then 5 ms gaps.
  const start = Date.UTC(2025, 0, 1);
  const raw = writeLog(tempDir(), rec.events, 'raw.jsonl', (i) => start + (i < 4 ? i : 10_000 + i * 5));
  const { plugin: timed, lines } = await plugin({ fixture: raw, timing: 'recorded' });
  expect(lines).toEqual([]);
  const started = performance.now();
  expect(await drain(timed, new Recording().user(1, 'hi').request(), 1, 1)).toHaveLength(3);
  const elapsed = performance.now() - started;
  expect(elapsed).toBeGreaterThanOrEqual(58);
  expect(elapsed).toBeLessThan(5_000);

  const projected = join(tempDir(), 'session.jsonl');
  writeFileSync(projected, projectLog(makeRecords(rec.events), { roots: {} }).text);
  const { lines: l2 } = await plugin({ fixture: projected, timing: 'recorded' });
  expect(l2).toEqual([
    `llm-replay: timing 'recorded' was asked, but ${projected} has no per-chunk timestamps (projected fixtures drop them); serving chunks without delays`,
  ]);
});

test('start-up failures name the file and what to do', async () => {
  const dir = tempDir();
  await expect(plugin({ fixture: join(dir, 'missing.jsonl') })).rejects.toThrow(
    `the replay fixture ${join(dir, 'missing.jsonl')} does not exist: record the scenario first`,
  );
  const cut = writeLog(
    dir,
    new Recording()
      .user(1, 'hi')
      .call(1, 1, [textChunk('x')], false)
      .end(1, 'error').events,
    'cut.jsonl',
  );
  await expect(plugin({ fixture: cut })).rejects.toThrow(`unterminated model call at turn 1 step 1 (${cut})`);
  await expect(plugin({})).rejects.toThrow('llm-replay: options.fixture is not set');
  await expect(plugin({ fixture: cut, timing: 'fast' })).rejects.toThrow(
    /llm-replay: invalid plugin options: timing: /,
  );
  const malformed = join(dir, 'malformed.jsonl');
  const good = serializeLog(makeRecords(new Recording().user(1, 'hi').events)).split('\n');
  writeFileSync(malformed, [good[0], '{"seq": 1, "event": {"type": "turn/start"}}', good[1], ''].join('\n'));
  const err = await rejection(plugin({ fixture: malformed }));
  expect(err.message).toMatch(new RegExp(`^cannot read the replay fixture: .*${malformed}:2`));
  const bad = join(dir, 'replay.override.json');
  writeFileSync(bad, '{"calls":[{"kind":"chunks","chunks":[]}]}');
  await expect(plugin({ fixture: cut, override: bad })).rejects.toThrow(
    `${bad}: does not match the replay.override.json schema`,
  );
});

test('an empty override option means no override', async () => {
  const fixture = writeLog(tempDir(), threeCalls().events);
  const { plugin: p } = await plugin({ fixture, override: '' });
  expect(await drain(p, new Recording().user(1, 'hi').request(), 1, 1)).toHaveLength(3);
  expect((p as LlmPlugin).name).toBe('replay');
});
