import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { type LogAppender, openLogAppender } from './appender.js';
import {
  buildChunk,
  buildHeader,
  finishChunk,
  llmRequest,
  makeRecords,
  textChunk,
  turnEnd,
  turnStart,
  userMessage,
} from './builders.js';
import { LogFormatError, serializeLog } from './codec.js';
import type { LogRecord, SessionEvent } from './events.js';
import { readLogFile, streamLogRecords } from './reader.js';
import { anyEvents } from './testing/arbitraries.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'session-log-'));

const events: SessionEvent[] = [
  buildHeader(),
  turnStart(1),
  userMessage(1, 'hi 😀'),
  llmRequest(1, 1),
  ...['Hel', 'lo', ' wor', 'ld'].map((t) => buildChunk(1, 1, textChunk(t))),
  buildChunk(1, 1, finishChunk('stop')),
  turnEnd(1),
];
const records = makeRecords(events);

/** Appends records and returns the file size after each append resolved: the durable boundaries. */
async function appendAll(a: LogAppender, path: string, recs: LogRecord[]): Promise<number[]> {
  const sizes: number[] = [];
  for (const r of recs) {
    await a.append(r.event, r.ts!);
    sizes.push(statSync(path).size);
  }
  return sizes;
}

for (const compression of ['gzip', 'none'] as const) {
  test(`${compression}: live journal and compacted file read back as the same records`, async () => {
    const path = join(tmp(), `s.jsonl${compression === 'gzip' ? '.gz' : ''}`);
    const a = await openLogAppender(path, { compression });
    expect(a.nextSeq).toBe(0);
    await appendAll(a, path, records);
    expect(a.nextSeq).toBe(records.length);
    const live = await readLogFile(path);
    expect(live).toEqual({ header: events[0], records, warnings: [] });
    const liveBytes = readFileSync(path);
    if (compression === 'none') {
      // Live rows are single-event rows, one line per event, readable as they are written.
      expect(liveBytes.toString('utf8').trimEnd().split('\n')).toHaveLength(records.length);
    } else {
      expect([liveBytes[0], liveBytes[1]]).toEqual([0x1f, 0x8b]);
    }
    await a.close();
    const closed = await readLogFile(path);
    expect(closed.records).toEqual(records);
    const text =
      compression === 'gzip' ? gunzipSync(readFileSync(path)).toString('utf8') : readFileSync(path, 'utf8');
    expect(text).toBe(serializeLog(records));
    const streamed: LogRecord[] = [];
    for await (const r of streamLogRecords(path)) streamed.push(r);
    expect(streamed).toEqual(records);
  });

  test(`${compression}: a crash at any byte leaves a readable prefix of the acknowledged events and a warning`, async () => {
    test.setTimeout(180_000);
    const dir = tmp();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        anyEvents,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }),
        async (evs, cuts) => {
          const path = join(dir, `live-${n++}`);
          const recs = makeRecords(evs);
          // fsync does not change which bytes are in the file, only whether they survive a power cut,
          // so the many generated logs skip it here; the examples above and below run with the default.
          const a = await openLogAppender(path, { compression, sync: 'on-close', compactOnClose: false });
          const sizes = await appendAll(a, path, recs);
          // The process "dies" here (the bytes are copied before close). Every byte offset is a possible crash point.
          const bytes = readFileSync(path);
          await a.close();
          for (const f of cuts) {
            const k = sizes[0]! + Math.floor(f * (bytes.length - sizes[0]!));
            const cut = `${path}.cut`;
            writeFileSync(cut, bytes.subarray(0, k));
            const { records: got, warnings } = await readLogFile(cut);
            const durable = sizes.filter((s) => s <= k).length;
            expect(got).toEqual(recs.slice(0, got.length));
            if (sizes.includes(k)) {
              expect(got).toHaveLength(durable);
              expect(warnings).toEqual([]);
            } else {
              // At most the event being written is lost (or it survives whole when only its framing was cut).
              expect(got.length === durable || got.length === durable + 1).toBe(true);
              if (!(compression === 'none' && got.length === durable + 1)) {
                expect(warnings).toHaveLength(1);
                expect(warnings[0]).toContain(`torn tail`);
                expect(warnings[0]).toContain(`recovered ${got.length} records`);
              }
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  test(`${compression}: reopening a torn log cuts the torn tail and resumes seq after the last complete record`, async () => {
    const path = join(tmp(), 's.log');
    const a = await openLogAppender(path, { compression });
    const sizes = await appendAll(a, path, records.slice(0, 6));
    const bytes = readFileSync(path);
    await a.close();
    writeFileSync(path, bytes.subarray(0, sizes[4]! + 3)); // a crash 3 bytes into the 6th event
    const b = await openLogAppender(path, { compression });
    expect(b.nextSeq).toBe(5);
    await b.append(turnEnd(1, 'error', { message: 'crashed' }), 42);
    await b.close();
    const { records: got, warnings } = await readLogFile(path);
    expect(warnings).toEqual([]);
    expect(got).toEqual([
      ...records.slice(0, 5),
      { seq: 5, ts: 42, event: turnEnd(1, 'error', { message: 'crashed' }) },
    ]);
  });
}

test('resuming a cleanly closed gzip log appends new members after the compacted one', async () => {
  const path = join(tmp(), 's.jsonl.gz');
  const a = await openLogAppender(path);
  await appendAll(a, path, records.slice(0, 5));
  await a.close();
  const b = await openLogAppender(path);
  expect(b.nextSeq).toBe(5);
  await appendAll(b, path, records.slice(5));
  expect((await readLogFile(path)).records).toEqual(records);
  await b.close();
  expect(gunzipSync(readFileSync(path)).toString('utf8')).toBe(serializeLog(records));
});

test('appender misuse fails with a message saying what to do', async () => {
  const dir = tmp();
  const a = await openLogAppender(join(dir, 'a.jsonl'), { compression: 'none' });
  await expect(a.append(turnStart(1), 1)).rejects.toThrow(
    'the first event of a new log must be the session header, got turn/start',
  );
  await a.append(buildHeader(), 1);
  await expect(a.append(buildHeader(), 2)).rejects.toThrow('the log already has a session header');
  await expect(a.append({ type: 'turn/start', turn: -1 }, 2)).rejects.toThrow(
    'cannot encode record #0 (turn/start): turn',
  );
  await a.append(turnStart(1), 3);
  expect(a.nextSeq).toBe(2);
  await a.close();
  await expect(a.append(turnStart(2), 4)).rejects.toThrow('appender is closed');
  await expect(openLogAppender(join(dir, 'a.jsonl'), { compression: 'gzip' })).rejects.toThrow(
    "the existing log is plain JSONL but compression 'gzip' was asked; open it with compression 'none'",
  );
});

test('a log cut inside its header, or not a log at all, fails clearly', async () => {
  const dir = tmp();
  const text = serializeLog(records);
  writeFileSync(join(dir, 'h.jsonl'), text.slice(0, 30));
  await expect(readLogFile(join(dir, 'h.jsonl'))).rejects.toThrow(
    `${join(dir, 'h.jsonl')}: no complete session header`,
  );
  writeFileSync(join(dir, 'x.jsonl'), `${text}{"bad":1}\n`);
  const err = await readLogFile(join(dir, 'x.jsonl')).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LogFormatError);
  expect((err as Error).message).toContain(
    `${join(dir, 'x.jsonl')}:7: bad row at (row): not a session log row`,
  );
});

test('streamLogRecords reports a torn tail through onWarning', async () => {
  const path = join(tmp(), 's.jsonl');
  const text = serializeLog(records);
  writeFileSync(path, text.slice(0, -5));
  const warnings: string[] = [];
  const got: LogRecord[] = [];
  for await (const r of streamLogRecords(path, { onWarning: (w) => warnings.push(w) })) got.push(r);
  expect(got).toEqual(records.slice(0, -1));
  expect(warnings).toEqual([
    `${path}:6: torn tail: the last line is incomplete (the writer stopped mid-write?); recovered ${records.length - 1} records before it`,
  ]);
});

test('stopping a stream early releases the file', async () => {
  const path = join(tmp(), 's.jsonl.gz');
  const a = await openLogAppender(path);
  await appendAll(a, path, records);
  await a.close();
  const got: LogRecord[] = [];
  for await (const r of streamLogRecords(path)) {
    got.push(r);
    if (got.length === 2) break;
  }
  expect(got).toEqual(records.slice(0, 2));
});
