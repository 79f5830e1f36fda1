// The failure catalog at the llm-replay layer: every case marked 'llm-replay' is provoked through
// the real plugin factory (override calls, or a mutated fixture) and must end in its typed error with
// the readable message the catalog states, while the close report still accounts for every call.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fingerprintRequest,
  isLlmAbortError,
  isLlmProviderError,
  type LlmPlugin,
  type StreamChunk,
} from '@acp-snapshot/core';
import { type FailureCase, failureCasesFor } from '@acp-snapshot/core/testing';
import { finishChunk, textChunk } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { createPlugin } from './index.js';
import { logSink, Recording, tempDir, writeLog } from './test-support.js';

const SCENARIO = 'failure-catalog';

/** The real plugin from the factory, reading `files` the way the agent's overlay passes them. */
async function load(files: { fixture?: string; override?: string }) {
  const sink = logSink();
  const plugin = await createPlugin({ options: { scenario: SCENARIO, ...files }, env: {}, log: sink.log });
  return { plugin, lines: sink.lines };
}

/** A replay.override.json holding the case's calls. */
function overrideOf(c: FailureCase): string {
  if (!c.override) throw new Error(`catalog case ${c.id} has no override calls to replay`);
  const file = join(tempDir(), 'replay.override.json');
  writeFileSync(file, JSON.stringify({ description: c.title, calls: c.override }));
  return file;
}

/** What one model call gave the agent: the chunks it saw, and how it ended. */
interface Served {
  chunks: StreamChunk[];
  error?: Error;
}

/**
 * Plays the agent's side of one call: the live request is the recording's (so only the override's own
 * expectations decide drift), every chunk until a finish is collected, a rejection is captured.
 */
async function serve(plugin: LlmPlugin, turn: number, step: number, signal?: AbortSignal): Promise<Served> {
  const live = new Recording().user(turn, 'hi');
  const request = live.request();
  const out: Served = { chunks: [] };
  try {
    for await (const chunk of plugin.stream(request, {
      signal: signal ?? new AbortController().signal,
      turn,
      step,
      fingerprint: fingerprintRequest(request),
    })) {
      out.chunks.push(chunk);
      if (chunk.type === 'finish') break;
    }
  } catch (e) {
    out.error = e as Error;
  }
  return out;
}

/** The last `llm-replay:` consumption line (the one close prints): what the process consumed in all. */
function report(lines: string[]): { consumed: number[]; total: number } {
  const line = lines.findLast((l) => l.startsWith('llm-replay: {'));
  if (!line) throw new Error(`no llm-replay consumption line in:\n${lines.join('\n')}`);
  return JSON.parse(line.slice('llm-replay: '.length));
}

/** The chunks a catalog override call streams. */
function chunksOf(c: FailureCase, call: number): unknown[] {
  return overrideCall(c, call).chunks ?? [];
}

/** One of the case's override calls, as the test reads it. */
function overrideCall(c: FailureCase, call: number): { chunks?: unknown[]; status?: number } {
  const found = c.override?.[call];
  if (!found) throw new Error(`catalog case ${c.id} has no override call ${call}`);
  return found as { chunks?: unknown[]; status?: number };
}

/** Provider-style failures (before or mid-stream): the typed error, its status, its prefix, its message. */
async function providerFailure(c: FailureCase): Promise<void> {
  const { plugin, lines } = await load({ override: overrideOf(c) });
  const got = await serve(plugin, 1, 1);
  expect(got.chunks).toEqual(chunksOf(c, 0));
  expect(got.error, 'the call must fail').toBeDefined();
  const err = got.error!;
  expect(isLlmProviderError(err)).toBe(true);
  expect(err).toMatchObject({ name: 'LlmProviderError', code: c.expect.llmErrorCode });
  expect((err as { status?: number }).status).toBe(overrideCall(c, 0).status);
  expect(err.message).toMatch(c.expect.message);
  await plugin.close!();
  expect(report(lines)).toEqual({ scenario: SCENARIO, consumed: [1], total: 1 });
}

/** How each case is driven at this layer; a catalog case with this layer but no driver fails the suite. */
const drivers: Record<string, (c: FailureCase) => Promise<void>> = {
  'provider-401': providerFailure,
  'provider-402': providerFailure,
  'provider-429': providerFailure,
  'provider-5xx': providerFailure,
  'stream-cut': providerFailure,
  'malformed-chunk': providerFailure,

  // The plugin does not judge arguments: it hands the recorded, unparsable arguments over verbatim
  // (the agent's failed tool result, and its message, are checked at the agent layer), then serves
  // the model's next call.
  'malformed-tool-args': async (c) => {
    const { plugin, lines } = await load({ override: overrideOf(c) });
    const first = await serve(plugin, 1, 1);
    expect(first.error).toBeUndefined();
    expect(first.chunks).toEqual(chunksOf(c, 0));
    const args = first.chunks.flatMap((k) => (k.type === 'tool_call_args' ? [k.delta] : [])).join('');
    expect(() => JSON.parse(args)).toThrow(SyntaxError);
    const second = await serve(plugin, 1, 2);
    expect(second.error).toBeUndefined();
    expect(second.chunks.at(-1)).toEqual(finishChunk('stop'));
    await plugin.close!();
    expect(report(lines)).toEqual({ scenario: SCENARIO, consumed: [1, 2], total: 2 });
  },

  // The prefix is served, then nothing until the turn's signal aborts: LlmAbortError, which the agent
  // turns into stop reason `cancelled` (its message is checked at the agent layer).
  'hang-then-cancel': async (c) => {
    const { plugin, lines } = await load({ override: overrideOf(c) });
    const abort = new AbortController();
    const live = new Recording().user(1, 'hi');
    const it = plugin
      .stream(live.request(), {
        signal: abort.signal,
        turn: 1,
        step: 1,
        fingerprint: fingerprintRequest(live.request()),
      })
      [Symbol.asyncIterator]();
    for (const chunk of chunksOf(c, 0)) expect((await it.next()).value).toEqual(chunk);
    let settled = false;
    const pending = it.next().then(
      () => {
        settled = true;
        return undefined;
      },
      (e: unknown) => {
        settled = true;
        return e as Error;
      },
    );
    // Let every queued callback run: a hang must still be pending afterwards.
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    abort.abort();
    const err = await pending;
    expect(isLlmAbortError(err)).toBe(true);
    expect(c.expect.stopReason).toBe('cancelled');
    await plugin.close!();
    expect(report(lines)).toEqual({ scenario: SCENARIO, consumed: [1], total: 1 });
  },

  // A bad row in the middle of the fixture fails the plugin at start-up, naming file:line and the fix.
  'malformed-fixture-line': async (c) => {
    const dir = tempDir();
    const rec = new Recording()
      .user(1, 'hi')
      .call(1, 1, [textChunk('Hel'), textChunk('lo'), finishChunk('stop')])
      .end(1);
    const fixture = writeLog(dir, rec.events);
    const good = await load({ fixture });
    expect((await serve(good.plugin, 1, 1)).chunks.at(-1)).toEqual(finishChunk('stop'));
    const rows = readFileSync(fixture, 'utf8').split('\n');
    // Line 3 (a body row, not the tail): a row whose event lacks its required fields.
    rows[2] = '{"seq":2,"event":{"type":"turn/start"}}';
    writeFileSync(fixture, rows.join('\n'));
    const err = await load({ fixture }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err, 'a malformed fixture line must fail the plugin at start-up').toBeDefined();
    expect(err!.name).toBe(c.expect.llmErrorCode);
    expect(err!.message).toMatch(c.expect.message);
    expect(err!.message).toContain(`${fixture}:3`);
    expect(err!.message).toContain('fix or remove that line');
  },

  'fixture-exhausted': async (c) => {
    const { plugin, lines } = await load({ override: overrideOf(c) });
    const first = await serve(plugin, 1, 1);
    expect(first.error).toBeUndefined();
    expect(first.chunks.at(-1)).toEqual(finishChunk('tool_calls'));
    const second = await serve(plugin, 1, 2);
    expect(second.chunks).toEqual([]);
    expect(second.error).toMatchObject({ code: 'replay', replayError: c.expect.llmErrorCode });
    expect(second.error!.message).toMatch(c.expect.message);
    expect(second.error!.message).toContain(`npm run record -- ${SCENARIO}`);
    // The same text reaches stderr, where a user reading the agent's output sees it.
    expect(lines.join('\n')).toContain(`llm-replay: ${second.error!.message}`);
    await plugin.close!();
    expect(report(lines)).toEqual({ scenario: SCENARIO, consumed: [1], total: 1 });
  },

  // The close report names the unused call, in the JSON line the harness reads and in words.
  'fixture-unused': async (c) => {
    const { plugin, lines } = await load({ override: overrideOf(c) });
    const first = await serve(plugin, 1, 1);
    expect(first.error).toBeUndefined();
    expect(first.chunks).toEqual(chunksOf(c, 0));
    expect(c.expect.stopReason).toBe('end_turn');
    await plugin.close!();
    expect(report(lines)).toEqual({ scenario: SCENARIO, consumed: [1], total: 2 });
    const words = lines.filter((l) => !l.startsWith('llm-replay: {'));
    expect(words).toHaveLength(1);
    expect(words[0]).toMatch(c.expect.message);
  },

  'request-drift': async (c) => {
    const { plugin, lines } = await load({ override: overrideOf(c) });
    const got = await serve(plugin, 1, 1);
    expect(got.chunks).toEqual([]);
    expect(got.error).toMatchObject({ code: 'replay', replayError: c.expect.llmErrorCode });
    expect(got.error!.message).toMatch(c.expect.message);
    expect(lines.join('\n')).toContain('llm-replay: ReplayDriftError: ');
    await plugin.close!();
    // Not consumed: the call never got an answer, so the harness also reports it unused.
    expect(report(lines)).toEqual({ scenario: SCENARIO, consumed: [], total: 1 });
  },
};

const cases = failureCasesFor('llm-replay');

test('every llm-replay case of the catalog has a driver here', () => {
  expect(cases.length).toBeGreaterThan(0);
  expect(cases.map((c) => c.id).filter((id) => !drivers[id])).toEqual([]);
});

for (const c of cases) {
  test(`${c.id}: ${c.title}`, async () => {
    const drive = drivers[c.id];
    if (!drive) throw new Error(`no llm-replay driver for catalog case ${c.id}`);
    await drive(c);
  });
}
