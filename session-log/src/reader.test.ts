import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { buildChunk, buildHeader, makeRecords, textChunk, turnEnd, turnStart } from './builders.js';
import { LogFormatError, serializeLog } from './codec.js';
import type { LogRecord, SessionEvent } from './events.js';
import { streamLogRecordBatches, streamLogRecords } from './reader.js';

/** A log of many 64 KiB read blocks: turns of long chunk runs (packed rows) and single-event rows. */
function bigLog(): LogRecord[] {
  const events: SessionEvent[] = [buildHeader({ cwd: '/w' })];
  for (let turn = 1; turn <= 40; turn++) {
    events.push(turnStart(turn));
    for (let i = 0; i < 300; i++) events.push(buildChunk(turn, 1, textChunk(`delta ${turn}.${i} é✓ `)));
    events.push(turnEnd(turn));
  }
  return makeRecords(events);
}

async function collect(path: string, onWarning?: (w: string) => void): Promise<LogRecord[][]> {
  const batches: LogRecord[][] = [];
  for await (const b of streamLogRecordBatches(path, { onWarning })) batches.push(b);
  return batches;
}

test('streamLogRecordBatches: every record in order, in non-empty batches, the same as streamLogRecords, plain or gzip', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'reader-batches-'));
  try {
    const records = bigLog();
    const text = serializeLog(records);
    for (const [name, bytes] of [
      ['log.jsonl', Buffer.from(text)],
      ['log.jsonl.gz', gzipSync(text)],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const batches = await collect(path);
      expect(batches.length).toBeGreaterThan(1);
      for (const b of batches) expect(b.length).toBeGreaterThan(0);
      expect(batches.flat()).toEqual(records);
      const one: LogRecord[] = [];
      for await (const r of streamLogRecords(path)) one.push(r);
      expect(one).toEqual(records);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('streamLogRecordBatches: a bad line past the first blocks fails naming file:line; a torn tail warns', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'reader-batches-'));
  try {
    const text = serializeLog(bigLog());
    const lines = text.split('\n').length - 1;
    const path = join(dir, 'log.jsonl');
    for (const [bad, message] of [
      ['{"event":{"type":"turn/start","turn":-1}}', `${path}:${lines + 1}: bad event row at event.turn: `],
      ['{"seq":1,', `${path}:${lines + 1}: bad row at (row): not valid JSON`],
    ] as const) {
      writeFileSync(path, `${text}${bad}\n`);
      const got: LogRecord[] = [];
      const err = await (async () => {
        for await (const b of streamLogRecordBatches(path)) got.push(...b);
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LogFormatError);
      expect((err as LogFormatError).file).toBe(path);
      expect((err as LogFormatError).line).toBe(lines + 1);
      expect((err as Error).message.startsWith(message), (err as Error).message).toBe(true);
      expect(got.length).toBeGreaterThan(0);
    }
    const bytes = Buffer.from(text);
    writeFileSync(path, Buffer.concat([bytes, Buffer.from([0xff, 0x0a])]));
    await expect(collect(path)).rejects.toThrow(
      `${path}:${lines + 1}: not valid UTF-8 (byte 0xff at column 1)`,
    );
    writeFileSync(path, text.slice(0, -5));
    const warnings: string[] = [];
    const batches = await collect(path, (w) => warnings.push(w));
    expect(warnings).toEqual([
      `${path}:${lines}: torn tail: the last line is incomplete (the writer stopped mid-write?); recovered ${batches.flat().length} records before it`,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('streamLogRecordBatches: stopping early releases the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'reader-batches-'));
  try {
    const path = join(dir, 'log.jsonl');
    const records = bigLog();
    writeFileSync(path, serializeLog(records));
    let first: LogRecord[] = [];
    for await (const b of streamLogRecordBatches(path)) {
      first = b;
      break;
    }
    expect(first).toEqual(records.slice(0, first.length));
    rmSync(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
