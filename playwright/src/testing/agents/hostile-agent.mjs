#!/usr/bin/env node
// A hostile "agent" for the stdout fuzz test (playwright/src/normalize/stdout.fuzz.test.ts): it speaks no ACP. Once the first
// request line arrives it writes the bytes of the file argv[2] to stdout verbatim, and those of argv[3]
// (if given) to stderr; then it exits when stdin ends, or as soon as the bytes are out when argv[4] is "exit".
import { readFileSync } from 'node:fs';

const [stdoutFile, stderrFile, when] = process.argv.slice(2);
let answered = false;
process.stdin.on('data', (chunk) => {
  if (answered || !chunk.includes(10)) return;
  answered = true;
  if (stderrFile) process.stderr.write(readFileSync(stderrFile));
  process.stdout.write(readFileSync(stdoutFile));
  // Exit by ending the event loop, not process.exit(): that would drop stdout still queued for the pipe.
  if (when === 'exit') {
    process.stdin.destroy();
    process.stdout.end();
  }
});
process.stdin.on('end', () => process.stdout.end());
