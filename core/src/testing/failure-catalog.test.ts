import { expect, test } from '@playwright/test';
import { FAILURE_CATALOG, failureCase, failureCasesFor, untestedCases } from './failure-catalog.js';

test('the catalog holds each failure of the issue once, under a kebab-case id', () => {
  expect(FAILURE_CATALOG.map((c) => c.id)).toEqual([
    'agent-command-not-found',
    'provider-401',
    'provider-402',
    'provider-429',
    'provider-5xx',
    'stream-cut',
    'malformed-chunk',
    'malformed-tool-args',
    'hang-then-cancel',
    'killed-mid-turn',
    'non-json-stdout',
    'malformed-fixture-line',
    'fixture-exhausted',
    'fixture-unused',
    'request-drift',
  ]);
  for (const c of FAILURE_CATALOG) expect(c.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
});

test('each case states how to provoke it at the layers it names', () => {
  for (const c of FAILURE_CATALOG) {
    expect(c.layers.length, c.id).toBeGreaterThan(0);
    if (c.layers.includes('agent')) expect(c.emulator, `${c.id}: emulator responses`).toBeDefined();
    // The fixture cases are provoked by mutating session.jsonl rather than by override calls.
    if (c.layers.includes('llm-replay') && c.id !== 'malformed-fixture-line')
      expect(c.override, `${c.id}: override calls`).toBeDefined();
    // A documented outcome is either a stop reason or an error response, never both.
    expect(c.expect.stopReason !== undefined && c.expect.rpcErrorCode !== undefined, c.id).toBe(false);
  }
  expect(failureCasesFor('harness').map((c) => c.id)).toContain('agent-command-not-found');
  expect(failureCasesFor('agent').map((c) => c.id)).not.toContain('non-json-stdout');
  expect(failureCase('killed-mid-turn').layers).toEqual(['agent', 'harness', 'harness-record']);
});

test('every case with emulator responses that reaches the harness is recorded through it, with a record-mode outcome', () => {
  const live = FAILURE_CATALOG.filter((c) => c.emulator !== undefined && c.layers.includes('harness'));
  expect(failureCasesFor('harness-record').map((c) => c.id)).toEqual(live.map((c) => c.id));
  for (const c of FAILURE_CATALOG) {
    const recorded = c.layers.includes('harness-record');
    expect(c.expect.recording !== undefined, `${c.id}: expect.recording iff harness-record`).toBe(recorded);
    if (recorded) expect(c.emulator, `${c.id}: emulator responses`).toBeDefined();
    // A documented stop reason is a normal run, so it is recorded; an error or a crash fails the recording.
    if (recorded) expect(c.expect.recording, c.id).toBe(c.expect.stopReason ? 'records' : 'fails');
  }
  expect(failureCasesFor('harness-record').map((c) => c.id)).not.toContain('agent-command-not-found');
});

test('untestedCases names the cases of a layer a spec has no test for', () => {
  const ids = failureCasesFor('harness-record').map((c) => c.id);
  expect(untestedCases('harness-record', new Set(ids))).toEqual([]);
  expect(untestedCases('harness-record', new Set(ids.filter((id) => id !== 'stream-cut')))).toEqual([
    'stream-cut',
  ]);
});

test('an unknown id names the known ones and where they are defined', () => {
  expect(() => failureCase('provider-418')).toThrow(
    /^unknown failure case "provider-418" \(known: agent-command-not-found, provider-401, .*request-drift\); cases are defined in core\/src\/testing\/failure-catalog\.ts$/,
  );
});
