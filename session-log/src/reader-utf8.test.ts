import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { buildHeader } from './builders.js';
import { LogFormatError, serializeLog } from './codec.js';
import { readLogFile } from './reader.js';

const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

test('readLogFile: a complete line that is not UTF-8 is a LogFormatError at file:line, plain or gzip', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'utf8-'));
  try {
    const header = serializeLog([{ event: buildHeader({ cwd: '/w' }) }]);
    const line2 = '{"seq":1,"ts":1,"event":{"type":"turn/start","turn":0,"x":"';
    const body = bytes(header, line2, [0xff], '"}}\n');
    for (const [name, content] of [
      ['plain.jsonl', body],
      ['packed.jsonl.gz', gzipSync(body)],
    ] as const) {
      const file = join(dir, name);
      writeFileSync(file, content);
      const err = await readLogFile(file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LogFormatError);
      expect((err as LogFormatError).line).toBe(2);
      expect((err as Error).message).toBe(
        `${file}:2: not valid UTF-8 (byte 0xff at column ${line2.length + 1}); the log was corrupted or re-encoded after it was written: restore it from version control or record it again`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readLogFile: the first bad line is the one reported, whether it is not JSON or not UTF-8, in one read block or across them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'utf8-order-'));
  try {
    const header = serializeLog([{ event: buildHeader({ cwd: '/w' }) }]);
    const good = '{"seq":1,"ts":1,"event":{"type":"turn/start","turn":1}}\n';
    // Lines 2..n-1 are fine; a filler pushes the bad lines past the first 64 KiB block in the long case.
    for (const filler of [0, 2000]) {
      const before = bytes(header, good.repeat(filler));
      const line = 2 + filler;
      const notJson = bytes(before, '{"seq":2,\n', [0xff], '\n');
      const notUtf8 = bytes(before, [0xff], '\n{"seq":2,\n');
      const file = join(dir, 'log.jsonl');
      for (const [content, message] of [
        [notJson, `${file}:${line}: bad row at (row): not valid JSON`],
        [notUtf8, `${file}:${line}: not valid UTF-8 (byte 0xff at column 1)`],
      ] as const) {
        writeFileSync(file, content);
        const err = await readLogFile(file).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(LogFormatError);
        expect((err as LogFormatError).line).toBe(line);
        expect((err as Error).message.startsWith(message), (err as Error).message).toBe(true);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
