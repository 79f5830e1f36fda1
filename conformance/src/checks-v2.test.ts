// Proves each ACP v2 check can fail: the v2 fake agent passes every check, each deliberate flaw makes the
// check that targets it fail for the right reason, and an agent that answers 1 is v1-only, not failing.
import { expect, test } from '@playwright/test';
import type { Timeouts } from './check.js';
import { checkById, V2_CHECKS } from './checks/index.js';
import { runCheck, runSuite, v1OnlyVerdict } from './runner.js';
import { fakeTarget } from './testing/fake-target.js';

const FAST: Timeouts = { request: 3_000, turn: 5_000, exit: 2_000, progress: 2_000 };
const v2 = (id: string) => checkById(id, 2);

test.describe('v2 checks against a conforming v2 fake agent', () => {
  for (const check of V2_CHECKS) {
    test(`${check.id} passes`, async () => {
      const r = await runCheck(fakeTarget(undefined, 2), check, FAST);
      expect(r.status, `${r.detail}\n${r.transcript}`).toBe('pass');
    });
  }
});

/** flaw -> the v2 check it must fail, with what the detail must say. */
const FLAWS: [flaw: string, checkId: string, detail: RegExp][] = [
  [
    'no-info',
    'v2.negotiation',
    /does not match v2 schema \$defs\/InitializeResponse: \/ must have required property 'info'/,
  ],
  [
    'boolean-markers',
    'v2.capabilities',
    /capabilities\.session\.prompt\.image is true: a v2 support marker is an object/,
  ],
  [
    'ack-no-message-id',
    'v2.prompt-ack-idle',
    /the acknowledgement does not match v2 schema \$defs\/PromptResponse: \/ must have required property 'messageId'/,
  ],
  [
    'ack-after-idle',
    'v2.prompt-ack-idle',
    /the acknowledgement \(stdout line \d+\) came after the idle state_update \(line \d+\)/,
  ],
  ['no-running', 'v2.prompt-ack-idle', /no state_update "running" between the prompt and the idle update/],
  [
    'chunk-no-message-id',
    'v2.upserts',
    /stdout line \d+: agent_message_chunk has messageId undefined, v2 requires one/,
  ],
  ['v1-tool-call', 'v2.upserts', /a v1 tool_call update; v2 creates a call with its first tool_call_update/],
  [
    'orphan-content-chunk',
    'v2.upserts',
    /tool_call_content_chunk for "never-created", which no tool_call_update created/,
  ],
  [
    'cancel-end-turn',
    'v2.cancel',
    /after session\/cancel the idle state_update has stopReason "end_turn", expected "cancelled"/,
  ],
  [
    'update-after-cancel-idle',
    'v2.cancel',
    /1 update\(s\) of the cancelled work arrived after its idle state_update \(first: agent_message_chunk/,
  ],
  [
    'no-list',
    'v2.session-list',
    /session\/list answered -32601 \(method not found\).*v2 requires session\/list/,
  ],
  [
    'list-ignores-cwd',
    'v2.session-list',
    /a cwd filter naming a directory without sessions returned 1 session\(s\) instead of an empty array/,
  ],
  [
    'resume-replays',
    'v2.session-resume',
    /2 message update\(s\) replayed before the response although replayFrom was omitted/,
  ],
  ['resume-no-state', 'v2.session-resume', /no state_update before the session\/resume response/],
  ['replay-empty', 'v2.resume-replay', /the replay before the response holds no user message/],
  [
    'close-no-cancel',
    'v2.session-close',
    /after session\/close the idle state_update has stopReason "end_turn", expected "cancelled"/,
  ],
  ['no-logout', 'v2.auth-methods', /auth\/logout answered -32601 \(method not found\)/],
  [
    'fs-call',
    'v2.schema',
    /stdout line \d+: fs\/read_text_file is not a method the ACP v2 schema defines for the agent to send/,
  ],
  ['v1-tool-call', 'v2.schema', /session\/update tool_call: v2 removed tool_call/],
];

test.describe('each v2 check fails on the flaw it targets', () => {
  for (const [flaw, id, detail] of FLAWS) {
    test(`${id} fails on ${flaw}`, async () => {
      const r = await runCheck(fakeTarget(flaw, 2), v2(id), FAST);
      expect(r.status, r.transcript).toBe('fail');
      expect(r.detail).toMatch(detail);
    });
  }

  test('every v2 check has at least one flaw that fails it', () => {
    const covered = new Set(FLAWS.map(([, id]) => id));
    expect(V2_CHECKS.map((c) => c.id).filter((id) => !covered.has(id))).toEqual([]);
  });
});

test('a v1-only agent: the negotiation is v1-only with the version it answered, the rest reported alike without a process', async () => {
  const results = await runSuite(fakeTarget('v1-only', 2), V2_CHECKS, { timeouts: FAST });
  expect(results.map((r) => [r.id, r.status])).toEqual(V2_CHECKS.map((c) => [c.id, 'skip']));
  expect(results.every((r) => r.v1Only === 1)).toBe(true);
  expect(results[0]!.pids).toHaveLength(1);
  expect(results.slice(1).flatMap((r) => r.pids)).toEqual([]);
  expect(results[0]!.detail).toBe('v1-only: asked for protocolVersion 2, the agent answered 1');
  expect(v1OnlyVerdict(results)).toBe('v1-only (asked for protocolVersion 2, answered 1)');
});

test('a v2 agent runs the whole v2 suite (no v1-only verdict)', async () => {
  const results = await runSuite(fakeTarget(undefined, 2), V2_CHECKS, { timeouts: FAST, jobs: 2 });
  expect(results.filter((r) => r.status !== 'pass').map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
  expect(v1OnlyVerdict(results)).toBeUndefined();
});
