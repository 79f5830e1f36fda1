// `npm run bench -- codec`: the session log codec on a generated log of 1,000,000 stream chunks
// (text deltas of 3-30 characters, a tool call every ~200 chunks). Targets: decode >= 2M events/s,
// packedRatio >= 3, compressedRatio >= 10, streaming read peak RSS <= 150 MB.
// decodeEventsPerSec: file bytes to logical records, every record handed to the consumer, per second,
// through streamLogRecordBatches (the records of one 64 KiB block at a time; the consumer loops over
// each). Until issue 14 it was streamLogRecords (one promise per record): that per-record figure is
// streamEventsPerSec now.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  buildChunk,
  buildHeader,
  finishChunk,
  type LogRecord,
  llmRequest,
  messageCommitted,
  parseLogText,
  projectLog,
  type SessionEvent,
  serializeLog,
  streamLogRecordBatches,
  streamLogRecords,
  textChunk,
  toolCall,
  toolCallArgs,
  toolCallStart,
  toolResult,
  turnEnd,
  turnStart,
  userMessage,
  writeLogFileAtomic,
} from '@acp-snapshot/session-log';
import { median, writeResults } from './_results.js';

const CHUNKS = 1_000_000;
const RUNS = 3;
/** Decode is the target figure, and cheap: more runs for a steadier median on a shared machine. */
const DECODE_RUNS = 7;
const CWD = '/tmp/acp-snap-bench/work';

/** Deterministic PRNG (mulberry32), so every run measures the same log. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a to of and in is it that for you this be on with as are we can file function return const let if ' +
  'else import export from await async type interface string number test error value path line code read ' +
  'write change update run build check log session agent model tool call result output input config ' +
  'should would will need use first then next now here there which when where what how because so but ' +
  'not all any each new old src/index.ts package.json README.md `npm` `tsc` () {} [] => ; , . : ! ? ' +
  'I let me look at the implementation and fix it properly. Done: the tests pass now.'
).split(' ');

/** A realistic log: turns of steps; each step streams ~200 text deltas, then a tool call and its result. */
export function generateLog(chunks: number): LogRecord[] {
  const rand = rng(42);
  const events: SessionEvent[] = [buildHeader({ cwd: CWD, sessionId: 'sess-bench' })];
  const times: number[] = [Date.UTC(2025, 0, 1)];
  let now = times[0]!;
  const push = (e: SessionEvent, gap: number) => {
    now += gap;
    events.push(e);
    times.push(now);
  };
  let emitted = 0;
  let turn = 0;
  while (emitted < chunks) {
    turn++;
    push(turnStart(turn), 1000);
    push(userMessage(turn, `Please update ${CWD}/src/file${turn}.ts and run the tests.`), 1);
    for (let step = 1; step <= 5 && emitted < chunks; step++) {
      push(llmRequest(turn, step), 2);
      // The last step takes whatever is left, so the log has exactly `chunks` stream chunks.
      let run = 150 + Math.floor(rand() * 100);
      const left = chunks - emitted - 3;
      if (left - run < 160) run = left;
      let text = '';
      for (let i = 0; i < run; i++) {
        let delta = '';
        const target = 3 + Math.floor(rand() * 28);
        while (delta.length < target) delta += `${WORDS[Math.floor(rand() * WORDS.length)]!} `;
        delta = delta.slice(0, target);
        text += delta;
        push(buildChunk(turn, step, textChunk(delta)), 5 + Math.floor(rand() * 35));
        emitted++;
      }
      const id = `call_${turn}_${step}`;
      const args = JSON.stringify({ path: `${CWD}/src/file${turn}.ts` });
      push(buildChunk(turn, step, toolCallStart(0, id, 'read_file')), 20);
      push(buildChunk(turn, step, toolCallArgs(0, args)), 5);
      push(buildChunk(turn, step, finishChunk('tool_calls')), 5);
      emitted += 3;
      push(messageCommitted(turn, { role: 'assistant', content: text }), 1);
      push(toolCall(turn, step, id, 'read_file', args), 1);
      push(toolResult(turn, step, id, `export const value${turn} = ${step};\n`), 3);
    }
    push(turnEnd(turn), 1);
  }
  return events.map((event, i) => ({ seq: i, ts: times[i]!, event }));
}

function timed<T>(fn: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, value };
}

/** Peak RSS of a fresh node process that streams the file with the built session-log bundle. */
function streamReadPeakRssMB(file: string, expected: number): number {
  const dist = pathToFileURL(resolve('session-log/dist/index.js')).href;
  const code = `
    import { streamLogRecords } from ${JSON.stringify(dist)};
    let n = 0;
    for await (const r of streamLogRecords(${JSON.stringify(file)})) n++;
    console.log(JSON.stringify({ n, maxRSS: process.resourceUsage().maxRSS }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  const { n, maxRSS } = JSON.parse(out.trim().split('\n').at(-1)!) as { n: number; maxRSS: number };
  if (n !== expected) throw new Error(`streaming read returned ${n} records, expected ${expected}`);
  return maxRSS / 1024;
}

export async function run(): Promise<void> {
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, ACP_SNAPSHOT_BUILD_QUIET: '1' },
  });
  const records = generateLog(CHUNKS);
  const events = records.length;
  const chunkCount = records.filter((r) => r.event.type === 'assistant/chunk').length;
  console.log(`codec: ${events} events (${chunkCount} stream chunks)`);

  let rawJsonlBytes = 0;
  for (const r of records) rawJsonlBytes += Buffer.byteLength(JSON.stringify(r)) + 1;

  const enc: number[] = [];
  let text = '';
  for (let i = 0; i < RUNS; i++) {
    const t = timed(() => serializeLog(records));
    enc.push(t.ms);
    text = t.value;
  }
  const dir = mkdtempSync(join(tmpdir(), 'acp-bench-codec-'));
  const plain = join(dir, 'session.jsonl');
  writeFileSync(plain, text);
  // Decode = file bytes to logical records, each handed to the consumer: in batches (streamLogRecordBatches,
  // how a large-log reader takes them) and one by one (streamLogRecords, a promise per record), interleaved.
  // Keeping all 1M records alive (parseLogText) is reported separately: there the garbage collector's
  // promotion of a million live objects dominates.
  const dec: number[] = [];
  const stream: number[] = [];
  for (let i = 0; i < DECODE_RUNS; i++) {
    let start = performance.now();
    let n = 0;
    for await (const batch of streamLogRecordBatches(plain)) for (const _ of batch) n++;
    if (n !== events) throw new Error(`batch decode returned ${n} records, expected ${events}`);
    dec.push(performance.now() - start);
    start = performance.now();
    n = 0;
    for await (const _ of streamLogRecords(plain)) n++;
    if (n !== events) throw new Error(`decode returned ${n} records, expected ${events}`);
    stream.push(performance.now() - start);
  }
  const retained = timed(() => parseLogText(text, 'bench.jsonl'));
  if (retained.value.records.length !== events) throw new Error('parseLogText lost records');
  const proj: number[] = [];
  for (let i = 0; i < RUNS; i++) proj.push(timed(() => projectLog(records, { roots: { cwd: CWD } })).ms);

  const packedBytes = Buffer.byteLength(text);
  try {
    // The at-rest form: what the appender's close (or writeLogFileAtomic) leaves on disk.
    const file = join(dir, 'session.jsonl.gz');
    await writeLogFileAtomic(file, records, 'gzip');
    const compressedBytes = statSync(file).size;
    if (compressedBytes !== gzipSync(text).length)
      throw new Error('at-rest file is not the gzip of the packed text');
    const rss = streamReadPeakRssMB(file, events);
    const perSec = (ms: number) => Math.round(events / (ms / 1000));
    writeResults('codec', {
      encodeEventsPerSec: perSec(median(enc)),
      decodeEventsPerSec: perSec(median(dec)),
      streamEventsPerSec: perSec(median(stream)),
      projectEventsPerSec: perSec(median(proj)),
      rawJsonlBytes,
      packedBytes,
      compressedBytes,
      packedRatio: Math.round((rawJsonlBytes / packedBytes) * 100) / 100,
      compressedRatio: Math.round((rawJsonlBytes / compressedBytes) * 100) / 100,
      streamReadPeakRssMB: Math.round(rss * 10) / 10,
    });
    console.log(
      `parseLogText (all ${events} records kept in memory): ${perSec(retained.ms)} events/s; ` +
        `load average at the end: ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
