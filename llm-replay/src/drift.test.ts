import { fingerprintRequest, type LlmRequest } from '@acp-snapshot/core';
import { deriveReplayScript } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { findDrift, textDiff } from './drift.js';
import { Recording } from './test-support.js';

const finish = { type: 'finish', reason: 'stop' } as const;

/** A recording made in one cwd, and a helper to fingerprint a live request made in another. */
function setup() {
  const rec = new Recording({ cwd: '/tmp/rec-cwd' })
    .user(1, 'Read /tmp/rec-cwd/src/a.ts and fix the bug in parseConfig please.')
    .call(1, 1, [{ type: 'text', text: 'Done.' }, finish])
    .end(1)
    .user(2, 'Thanks');
  const [entry] = deriveReplayScript(rec.events);
  const liveRoots = { cwd: '/var/tmp/live-cwd-123' };
  const live = (r: LlmRequest) => fingerprintRequest(r, liveRoots);
  const liveRequest = (text: string): LlmRequest => ({
    ...rec.request(),
    messages: [{ role: 'user', content: text }],
  });
  return {
    rec,
    expected: entry!.request!,
    live,
    liveRequest,
    recorded: { system: rec.header.systemPrompt as string },
  };
}

test('the same request in another cwd is no drift', () => {
  const { expected, live, liveRequest, recorded } = setup();
  const r = liveRequest('Read /var/tmp/live-cwd-123/src/a.ts and fix the bug in parseConfig please.');
  expect(findDrift(expected, r, live(r), recorded, {})).toBeUndefined();
});

test('a changed message names messages[i].content and shows recorded vs live around the first difference', () => {
  const { expected, live, liveRequest, recorded } = setup();
  const r = liveRequest('Read /var/tmp/live-cwd-123/src/a.ts and fix the bug in parseOptions please.');
  const drift = findDrift(expected, r, live(r), recorded, {});
  expect(drift).toMatchObject({ part: 'messages[0]', path: 'messages[0].content' });
  // The cwd was not given: it is inferred, so the snippet points at the real change, not the path.
  expect(drift?.detail).toBe(
    '  messages[0].content (user message):\n' +
      '    recorded (60 chars): …"{{cwd}}/src/a.ts and fix the bug in parseConfig please."\n' +
      '    live     (61 chars): …"{{cwd}}/src/a.ts and fix the bug in parseOptions please."\n' +
      '    (first difference at character 46)',
  );
});

test('a root the plugin was not told is inferred whatever its name: {{workspaceParent}} too', () => {
  const ask = (where: string, fn: string) => `Read ${where}/src/a.ts and fix the bug in ${fn} please.`;
  const rec = new Recording({ workspaceParent: '/tmp/rec-parent' })
    .user(1, ask('/tmp/rec-parent', 'parseConfig'))
    .call(1, 1, [{ type: 'text', text: 'Done.' }, finish])
    .end(1)
    .user(2, 'Thanks');
  const [entry] = deriveReplayScript(rec.events);
  const r: LlmRequest = {
    ...rec.request(),
    messages: [{ role: 'user', content: ask('/var/tmp/parent-123', 'parseOptions') }],
  };
  // The agent hashed its live request with its own roots; the plugin knows none of them.
  const fp = fingerprintRequest(r, { workspaceParent: '/var/tmp/parent-123' });
  const drift = findDrift(entry!.request!, r, fp, { system: rec.header.systemPrompt as string }, {});
  expect(drift).toMatchObject({ part: 'messages[0]', path: 'messages[0].content' });
  // The snippet points at the real change, not at the parent directory.
  expect(drift?.detail).toContain('"{{workspaceParent}}/src/a.ts and fix the bug in parseConfig please."');
  expect(drift?.detail).toContain('"{{workspaceParent}}/src/a.ts and fix the bug in parseOptions please."');
});

test('an extra live message, a system prompt, tools and params are each located', () => {
  const { rec, expected, live, recorded } = setup();
  const base = rec.request();
  base.messages = [{ role: 'user', content: 'Read {{cwd}}/src/a.ts and fix the bug in parseConfig please.' }];
  const extra: LlmRequest = { ...base, messages: [...base.messages, { role: 'user', content: 'more' }] };
  const fpBase = fingerprintRequest(base);
  expect(
    findDrift({ ...expected, fingerprint: fpBase }, extra, fingerprintRequest(extra), recorded, {}),
  ).toEqual({
    part: 'messages[1]',
    path: 'messages[1]',
    live: '{"role":"user","content":"more"}',
    detail:
      '  the recorded request had 1 messages, the live one has 2\n' +
      '  recorded messages[1]: not available (the live request has an extra message); live messages[1] (user):\n' +
      '    "more"',
  });
  const system: LlmRequest = { ...base, system: `${base.system} Be terse.` };
  const sys = findDrift({ ...expected, fingerprint: fpBase }, system, live(system), recorded, {});
  expect(sys?.part).toBe('system');
  // The report's data: both texts whole, for the harness's cause.
  expect(sys).toMatchObject({ path: 'system', recorded: base.system, live: `${base.system} Be terse.` });
  expect(sys?.detail).toContain('the system prompt changed (first hunk; the full diff follows on stderr):');
  expect(sys?.detail).toContain('Be terse.');
  const tools: LlmRequest = {
    ...base,
    tools: [...base.tools, { name: 'web_fetch', description: 'fetch', parameters: {} }],
  };
  const t = findDrift({ ...expected, fingerprint: fpBase }, tools, live(tools), { tools: base.tools }, {});
  expect(t?.part).toBe('tools');
  expect(t?.detail).toContain('added: web_fetch');
  const params: LlmRequest = { ...base, params: { temperature: 0.5 } };
  expect(findDrift({ ...expected, fingerprint: fpBase }, params, live(params), recorded, {})).toEqual({
    part: 'params',
    path: 'params',
    live: '{"temperature":0.5,"purpose":"turn"}',
    detail: expect.stringContaining('live params {"temperature":0.5,"purpose":"turn"}'),
  });
});

test('an override fingerprint given as a bare hash compares the whole request; none means no check', () => {
  const { expected, live, liveRequest, recorded } = setup();
  const r = liveRequest('x');
  expect(findDrift({ fingerprint: { hash: live(r).hash } }, r, live(r), recorded, {})).toBeUndefined();
  expect(findDrift({ fingerprint: { hash: 'abc' } }, r, live(r), recorded, {})?.part).toBe('request');
  expect(findDrift({ turn: 1 }, r, live(r), recorded, {})).toBeUndefined();
  expect(findDrift(undefined, r, live(r), recorded, {})).toBeUndefined();
  expect(expected.fingerprint).toBeTruthy();
});

test('text diffs cut long texts to a window around the first difference', () => {
  const a = `${'x'.repeat(200)}A${'y'.repeat(200)}`;
  const b = `${'x'.repeat(200)}B${'y'.repeat(200)}`;
  expect(textDiff(a, b)).toBe(
    `    recorded (401 chars): …"${'x'.repeat(40)}A${'y'.repeat(39)}"…\n` +
      `    live     (401 chars): …"${'x'.repeat(40)}B${'y'.repeat(39)}"…\n` +
      '    (first difference at character 200)',
  );
});

test('text diff windows keep the emoji at their edges whole: no lone \\ud83d escape in the message', () => {
  // Window edges at 160 and 240: a flag starts at 159 and a ZWJ sequence at 239.
  const text = (mark: string) =>
    `${'x'.repeat(159)}🇯🇵${'x'.repeat(37)}${mark}${'y'.repeat(38)}👩‍💻${'y'.repeat(40)}`;
  const diff = textDiff(text('A'), text('B'));
  expect(diff).toBe(
    `    recorded (284 chars): …"🇯🇵${'x'.repeat(37)}A${'y'.repeat(38)}"…\n` +
      `    live     (284 chars): …"🇯🇵${'x'.repeat(37)}B${'y'.repeat(38)}"…\n` +
      '    (first difference at character 200)',
  );
});
