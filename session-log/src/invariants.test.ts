// Invariants of the session log across the live writer, crashes and resume (issue 6, "Invariants").
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { openLogAppender } from './appender.js';
import { buildChunk, makeRecords, textChunk } from './builders.js';
import { decodeRows, encodeRows, serializeLog } from './codec.js';
import { readLogFile } from './reader.js';
import { anyEvents } from './testing/arbitraries.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'session-log-inv-'));
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..');

for (const compression of ['gzip', 'none'] as const) {
  test(`${compression}: replay equals live at the log level`, async () => {
    test.setTimeout(120_000);
    const dir = tmp();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(anyEvents, async (events) => {
        const path = join(dir, `s${n++}.jsonl${compression === 'gzip' ? '.gz' : ''}`);
        const originals = makeRecords(events);
        const a = await openLogAppender(path, { compression, sync: 'on-close' });
        for (const r of originals) await a.append(r.event, r.ts as number);
        await a.close();
        const { header, records, warnings } = await readLogFile(path);
        expect(warnings).toEqual([]);
        expect(header).toEqual(events[0]);
        expect(records.map((r) => r.event)).toEqual(events);
        expect(records).toEqual(originals);
        expect(serializeLog(decodeRows(encodeRows(records)))).toBe(serializeLog(originals));
        expect(serializeLog(records)).toBe(serializeLog(originals));
      }),
      { numRuns: 40 },
    );
  });

  for (const ackedAtLeast of [1, 7, 40]) {
    test(`${compression}: SIGKILL after ${ackedAtLeast} acknowledged events, then resume, keeps seq gapless`, async () => {
      test.setTimeout(60_000);
      const path = join(tmp(), `s.jsonl${compression === 'gzip' ? '.gz' : ''}`);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(here, 'testing', 'crash-writer.ts'), path, compression],
        { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const acked: number[] = [];
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
        child.on('exit', (code, signal) => resolve(signal ?? code)),
      );
      await new Promise<void>((resolve, reject) => {
        let buf = '';
        const timer = setTimeout(
          () => reject(new Error(`writer acked ${acked.length} events in 30 s; stderr: ${stderr}`)),
          30_000,
        );
        child.on('exit', (code) => reject(new Error(`writer exited early (${code}); stderr: ${stderr}`)));
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          const lines = buf.split('\n');
          buf = lines.pop() ?? '';
          for (const l of lines) acked.push(Number(l));
          if (acked.length >= ackedAtLeast) {
            clearTimeout(timer);
            child.kill('SIGKILL');
            resolve();
          }
        });
      });
      expect(await exited).toBe('SIGKILL');
      // Acknowledgements are consecutive from the header on.
      expect(acked).toEqual(acked.map((_, i) => i));

      const a = await openLogAppender(path, { compression });
      const resumedAt = a.nextSeq;
      expect(resumedAt).toBeGreaterThanOrEqual(acked.length);
      const extra = 5;
      for (let i = 0; i < extra; i++) {
        await a.append(buildChunk(2, 1, textChunk(`after resume ${i}`)), Date.UTC(2025, 0, 2) + i);
      }
      expect(a.nextSeq).toBe(resumedAt + extra);
      await a.close();

      const { header, records, warnings } = await readLogFile(path);
      // The resume cut any torn tail; at most one torn-tail warning is tolerated.
      expect(warnings.length).toBeLessThanOrEqual(1);
      for (const w of warnings) expect(w).toContain('torn tail');
      expect(header.type).toBe('session/header');
      expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i));
      expect(records.length).toBe(resumedAt + extra);
      const seqs = new Set(records.map((r) => r.seq));
      for (const s of acked) expect(seqs.has(s)).toBe(true);
      for (const r of records.slice(1, resumedAt)) {
        expect(r.event).toMatchObject({
          type: 'assistant/chunk',
          chunk: { text: expect.stringMatching(`^chunk ${r.seq} `) },
        });
      }
    });
  }
}
