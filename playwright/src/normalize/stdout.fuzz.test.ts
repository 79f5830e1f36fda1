// Fuzzing what the harness reads from an agent: hostile stdout (and stderr) bytes from a real process,
// through the driver and the SDK's ndJsonStream, up to the normalized snapshot text (see TESTING.md).

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildHostile,
  deepHostile,
  deepJsonText,
  type HostileSpec,
  hugeHostile,
  invalidUtf8,
  MB,
  nastyString,
  outcome,
  smallHostile,
} from '@acp-snapshot/core/testing';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import {
  agentEnv,
  DriverError,
  type DriverOptions,
  type DriverResult,
  driveScenario,
} from '../driver/driver.js';
import { parseScenario } from '../scenario/input.js';
import { NormalizeError, normalizeStdout } from './normalize.js';

const agent = join(import.meta.dirname, '..', 'testing', 'agents', 'hostile-agent.mjs');
const TIMEOUT_MS = 4000;

/** One stdout line of the hostile agent, as a spec (built in the property, so failures print small). */
type LineSpec =
  | { kind: 'json'; value: unknown }
  | { kind: 'initResult'; extra: HostileSpec }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; prefix: string; bytes: readonly number[] }
  | { kind: 'big'; spec: HostileSpec };

const initResult = (extra: unknown) => ({
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, _meta: { extra } },
});

/** JSON the SDK must cope with: not messages, wrong ids, results and errors of the wrong shape, bad requests. */
const junkJson = fc.oneof(
  fc.constantFrom<unknown>(
    123,
    null,
    'str',
    [],
    [{ jsonrpc: '2.0', id: 0, result: {} }],
    {},
    { jsonrpc: '2.0' },
    { jsonrpc: '2.0', id: 0 },
    { jsonrpc: '2.0', id: 0, result: null },
    { jsonrpc: '2.0', id: 0, result: { protocolVersion: 'one' } },
    { jsonrpc: '2.0', id: 0, error: {} },
    { jsonrpc: '2.0', id: 0, error: { code: -32000, message: 'agent says no' } },
    { jsonrpc: '2.0', id: 0, result: {}, error: { code: 1, message: 'both' } },
    { jsonrpc: '2.0', id: 99, result: {} },
    { jsonrpc: '2.0', id: { a: 1 }, result: {} },
    { jsonrpc: '2.0', id: 7, method: 'session/request_permission', params: {} },
    { jsonrpc: '2.0', id: 8, method: 'fs/read_text_file', params: { sessionId: 's', path: '/etc/passwd' } },
    { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'x' } },
    { jsonrpc: '1.0', id: 0, result: {} },
  ),
  fc.record({ jsonrpc: fc.constant('2.0'), method: nastyString, params: fc.jsonValue({ maxDepth: 2 }) }),
  fc.jsonValue({ maxDepth: 3 }),
);

const smallLine: fc.Arbitrary<LineSpec> = fc.oneof(
  junkJson.map((value) => ({ kind: 'json' as const, value })),
  smallHostile.map((extra) => ({ kind: 'initResult' as const, extra })),
  nastyString.map((text) => ({ kind: 'text' as const, text })),
  fc.record({
    kind: fc.constant('bytes' as const),
    prefix: fc.constantFrom('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"x":"', '"', ''),
    bytes: fc.oneof(invalidUtf8, fc.constantFrom<readonly number[]>([0], [0xef, 0xbb, 0xbf], [0x0d])),
  }),
);

const bigLine: fc.Arbitrary<LineSpec> = fc.oneof(hugeHostile, deepHostile).map((spec) => ({
  kind: 'big' as const,
  spec,
}));

function lineBytes(l: LineSpec): Buffer {
  switch (l.kind) {
    case 'json':
      return Buffer.from(JSON.stringify(l.value));
    case 'initResult':
      return Buffer.from(JSON.stringify(initResult(buildHostile(l.extra))));
    case 'text':
      return Buffer.from(l.text);
    case 'bytes':
      // An open string and a bad byte: invalid UTF-8 inside otherwise valid JSON once closed.
      return Buffer.concat([Buffer.from(l.prefix), Buffer.from(l.bytes), Buffer.from(l.prefix ? '"}}' : '')]);
    case 'big':
      if (l.spec.kind === 'deep') return Buffer.from(deepJsonText(l.spec.depth, l.spec.shape));
      // A valid response whose payload is megabytes long (raw piece bytes, like a runaway tool output).
      return Buffer.from(JSON.stringify(initResult(buildHostile(l.spec))));
  }
}

/**
 * What the agent writes: lines, LF or CRLF, the last one with or without its newline; and its stderr, whose
 * 1-16 MB cases belong with the big lines (run fewer times: under load each takes seconds).
 */
const payload = (line: fc.Arbitrary<LineSpec>, maxLines: number, stderr: fc.Arbitrary<HostileSpec>) =>
  fc.record({
    lines: fc.array(line, { minLength: 1, maxLength: maxLines }),
    crlf: fc.boolean(),
    trailingNewline: fc.boolean(),
    stderr: fc.oneof(
      { weight: 2, arbitrary: fc.constant<HostileSpec | undefined>(undefined) },
      { weight: 1, arbitrary: stderr },
    ),
  });

function payloadBytes(p: { lines: LineSpec[]; crlf: boolean; trailingNewline: boolean }): Buffer {
  const eol = Buffer.from(p.crlf ? '\r\n' : '\n');
  const parts: Buffer[] = [];
  p.lines.forEach((l, i) => {
    parts.push(lineBytes(l));
    if (i < p.lines.length - 1 || p.trailingNewline) parts.push(eol);
  });
  return Buffer.concat(parts);
}

let dir: string;
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stdout-fuzz-'));
});
test.afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const scenario = parseScenario(
  { description: 'hostile stdout', steps: [{ op: 'initialize' }], timeoutMs: TIMEOUT_MS },
  'stdout-fuzz/input.json',
);

/** The driver running the hostile agent on a stdout (and stderr) file; it exits once it wrote them. */
function options(stdoutFile: string, stderrFile: string): DriverOptions {
  return {
    command: [process.execPath, agent, stdoutFile, stderrFile, 'exit'],
    env: agentEnv({ mode: 'replay', scenario: 'stdout-fuzz', persistRoot: dir, spillRoot: dir, home: dir }),
    processCwd: dir,
    sessionCwd: dir,
    fsRoot: dir,
    scenario,
    name: 'stdout-fuzz',
    // The agent exits once it wrote everything; the grace only bounds a hang, and a loaded machine writes 37 MB slowly.
    exitGraceMs: 10_000,
  };
}

let n = 0;
/** Runs the hostile agent on one payload and checks what a user of the harness would see. */
async function check(p: {
  lines: LineSpec[];
  crlf: boolean;
  trailingNewline: boolean;
  stderr: HostileSpec | undefined;
}): Promise<void> {
  const bytes = payloadBytes(p);
  const out = join(dir, `${n}.out`);
  const err = join(dir, `${n++}.err`);
  await writeFile(out, bytes);
  if (p.stderr) await writeFile(err, String(buildHostile(p.stderr)));
  const o = await outcome(() => driveScenario(options(out, p.stderr ? err : '')));
  const problems: string[] = [];
  // The agent exits right after writing, so a scenario timeout (not an accepted message below) means the
  // driver got stuck on the input; this bound catches a hang beyond it.
  if (o.ms > TIMEOUT_MS + 3000)
    problems.push(`took ${Math.round(o.ms)} ms (scenario timeout ${TIMEOUT_MS} ms)`);
  if (o.rssGrowth > 768 * MB) problems.push(`RSS grew ${Math.round(o.rssGrowth / MB)} MB`);
  let result: DriverResult | undefined;
  if (o.ok) result = o.value;
  else if (!(o.error instanceof DriverError)) problems.push(`not a DriverError: ${String(o.error)}`);
  else {
    result = o.error.result;
    const m = o.error.message;
    if (m.length > 4000) problems.push(`message of ${m.length} chars: ${JSON.stringify(m.slice(0, 300))}`);
    if (
      !/non-JSON line to stdout \(process 1, stdout line \d+\)|^agent stdout, process 1, line \d+: |nested deeper than|stdout line over|exited \(|JSON-RPC error/.test(
        m,
      )
    )
      problems.push(
        `message names neither the line, the exit nor the timeout: ${JSON.stringify(m.slice(0, 300))}`,
      );
  }
  if (result) {
    // Raw stdout is kept line for line, exactly as written (as far as the driver read before it stopped).
    const written = bytes.toString('utf8').split('\n');
    if (p.trailingNewline || written.at(-1) === '') written.pop();
    const kept = result.stdout.map((l) => l.text);
    // The last kept line may be cut short when the driver killed the agent mid-write, also inside a
    // character, whose first bytes then decode to U+FFFD (seed 1811986126: a torn line of emoji).
    const cut = (t: string, i: number) =>
      !o.ok && i === kept.length - 1 && written[i]?.startsWith(t.replace(/\uFFFD+$/, '')) === true;
    if (kept.some((t, i) => t !== written[i] && !cut(t, i)))
      problems.push('a kept stdout line differs from the line written');
    if (result.exits.some((e) => e === null)) problems.push('an agent process was left running');
    // Whatever the driver accepted normalizes, or fails with a NormalizeError naming the line.
    const norm = await outcome(() => normalizeStdout(result.stdout));
    if (!norm.ok && !(norm.error instanceof NormalizeError))
      problems.push(`normalizing stdout threw ${String(norm.error)}`);
  }
  expect(problems).toEqual([]);
}

test('hostile stdout lines (junk JSON, wrong ids, non-JSON, NUL, bad UTF-8, CRLF, torn last line) end in a clear DriverError or a run', async () => {
  // 40 agent processes: ~4 s on an idle machine, several times that while the rest of npm test runs beside it.
  test.setTimeout(120_000);
  await fc.assert(fc.asyncProperty(payload(smallLine, 4, smallHostile), check), { numRuns: 40 });
});

test('a 1-16 MB stdout line, a 10^4-10^5 deep one or a huge stderr: bounded time, memory and message', async () => {
  await fc.assert(
    fc.asyncProperty(
      payload(
        fc.oneof({ weight: 1, arbitrary: smallLine }, { weight: 2, arbitrary: bigLine }),
        2,
        fc.oneof(smallHostile, hugeHostile),
      ),
      check,
    ),
    // No shrinking: each case is a process run on megabytes, and the specs print small anyway.
    { numRuns: 8, endOnFailure: true },
  );
});

test('a stdout line over 32 MB without a newline fails naming the line, without buffering it all', async () => {
  const out = join(dir, 'endless.out');
  await writeFile(out, Buffer.alloc(40 * MB, 'z'));
  const o = await outcome(() => driveScenario(options(out, '')));
  expect(o.error).toBeInstanceOf(DriverError);
  expect((o.error as Error).message).toBe(
    'agent wrote a stdout line over 32 MB without a newline (process 1, stdout line 1); ACP messages are newline-delimited.',
  );
  expect(o.rssGrowth).toBeLessThan(256 * MB);
});

test('a 30 MB response line is kept whole and reaches the SDK', async () => {
  const out = join(dir, 'thirty.out');
  await writeFile(out, `${JSON.stringify(initResult('r'.repeat(30 * MB)))}\n`);
  const r = await driveScenario(options(out, ''));
  expect(r.stdout.map((l) => l.text.length)).toEqual([30 * MB + 118]);
});

test('an agent that exits after a megabyte-long stderr line is reported with that line clipped', async () => {
  const out = join(dir, 'ignored.out');
  const err = join(dir, 'long.err');
  await writeFile(out, '{"jsonrpc":"2.0","method":"_log","params":{}}\n');
  await writeFile(err, `fatal: ${'e'.repeat(4 * MB)}\n`);
  const o = await outcome(() => driveScenario(options(out, err)));
  expect(o.error).toBeInstanceOf(DriverError);
  // The stderr read by the time the exit is seen may be any part of the 4 MB line: its clipped start shows.
  expect((o.error as Error).message).toMatch(
    /^agent process 1 exited \(0\) before the scenario finished; its stderr ends with:\n {2}fatal: e{1993}… \(\d+ chars\)$/,
  );
});
