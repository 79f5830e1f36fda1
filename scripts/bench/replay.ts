// `npm run bench -- replay`: how fast llm-replay serves a recorded stream and derives a script.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprintRequest, type LlmRequest } from '@acp-snapshot/core';
import { createPlugin } from '@acp-snapshot/llm-replay';
import {
  buildHeader,
  deriveReplayScript,
  makeRecords,
  type SessionEvent,
  serializeLog,
} from '@acp-snapshot/session-log';
import { median, writeResults } from './_results.js';

const CHUNKS = 100_000;
/** Measured runs per figure (after one unmeasured warm-up run); the median is reported. */
const RUNS = 9;

function request(text: string): LlmRequest {
  return {
    model: 'bench',
    system: 'bench',
    messages: [{ role: 'user', content: text }],
    tools: [],
    params: {},
    purpose: 'turn',
  };
}

/** A log of `turns` turns, each one call of `chunksPerCall` chunks; returns its events. */
function makeLog(turns: number, chunksPerCall: number): SessionEvent[] {
  const events: SessionEvent[] = [buildHeader()];
  const messages: LlmRequest['messages'] = [];
  for (let turn = 1; turn <= turns; turn++) {
    events.push({ type: 'turn/start', turn });
    const user = { role: 'user' as const, content: `prompt ${turn}` };
    events.push({ type: 'message/committed', turn, message: user });
    messages.push(user);
    const fingerprint = fingerprintRequest({ ...request(''), messages: [...messages] });
    events.push({ type: 'llm/request', turn, step: 1, purpose: 'turn', fingerprint });
    for (let i = 0; i < chunksPerCall - 1; i++)
      events.push({ type: 'assistant/chunk', turn, step: 1, chunk: { type: 'text', text: 'tok ' } });
    events.push({ type: 'assistant/chunk', turn, step: 1, chunk: { type: 'finish', reason: 'stop' } });
    const answer = { role: 'assistant' as const, content: 'tok '.repeat(chunksPerCall - 1) };
    events.push({ type: 'message/committed', turn, message: answer });
    messages.push(answer);
    events.push({ type: 'turn/end', turn, kind: 'completed' });
  }
  return events;
}

/** Chunks per second of one recorded call of CHUNKS chunks, drained like the agent drains a stream. */
async function replayChunksPerSec(dir: string): Promise<number> {
  const events = makeLog(1, CHUNKS);
  const fixture = join(dir, 'session.jsonl');
  writeFileSync(fixture, serializeLog(makeRecords(events)));
  const live = request('prompt 1');
  const fingerprint = fingerprintRequest(live);
  const rates: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const plugin = await createPlugin({ options: { fixture, scenario: 'bench' }, env: {}, log: () => {} });
    const signal = new AbortController().signal;
    let n = 0;
    const started = performance.now();
    for await (const chunk of plugin.stream(live, { signal, turn: 1, step: 1, fingerprint })) {
      n++;
      if (chunk.type === 'finish') break;
    }
    const ms = performance.now() - started;
    if (n !== CHUNKS) throw new Error(`bench: served ${n} chunks, expected ${CHUNKS}`);
    if (run > 0) rates.push(n / (ms / 1000));
  }
  return median(rates);
}

/** Events per second through deriveReplayScript on a 200-turn log of 1,000-chunk calls. */
function deriveEventsPerSec(): number {
  const events = makeLog(200, 1000);
  const rates: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const started = performance.now();
    const script = deriveReplayScript(events);
    const ms = performance.now() - started;
    if (script.length !== 200) throw new Error(`bench: derived ${script.length} calls, expected 200`);
    if (run > 0) rates.push(events.length / (ms / 1000));
  }
  return median(rates);
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-replay-'));
  try {
    writeResults('replay', {
      replayChunksPerSec: Math.round(await replayChunksPerSec(dir)),
      deriveEventsPerSec: Math.round(deriveEventsPerSec()),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
