// A log writer for fault-injection tests: appends events forever and prints each acknowledged seq, until killed.
import { openLogAppender } from '../appender.js';
import { buildChunk, buildHeader, textChunk } from '../builders.js';

const [path, compression] = process.argv.slice(2);
if (!path || (compression !== 'gzip' && compression !== 'none')) {
  process.stderr.write('usage: crash-writer.ts <log path> <gzip|none>\n');
  process.exit(2);
}
const appender = await openLogAppender(path, { compression });
let ts = Date.UTC(2025, 0, 1);
if (appender.nextSeq === 0) {
  await appender.append(buildHeader(), ts++);
  process.stdout.write('0\n');
}
for (;;) {
  const seq = appender.nextSeq;
  await appender.append(buildChunk(1, 1, textChunk(`chunk ${seq} ${'x'.repeat(seq % 50)}`)), ts++);
  process.stdout.write(`${seq}\n`);
}
