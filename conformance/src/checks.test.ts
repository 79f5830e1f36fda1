// Proves each conformance check can fail: the fake agent passes every check, and each deliberate flaw
// makes the check that targets it fail for the right reason.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { scaleTimeouts, type Timeouts } from './check.js';
import { ALL_CHECKS, checkById } from './checks/index.js';
import { parseProfile, profileTarget } from './profile-target.js';
import { runCheck, runChecks } from './runner.js';
import { FAKE_AGENT, fakeTarget } from './testing/fake-target.js';

/** Short deadlines: the fake answers at once, so a wait that runs out means a missing message. */
const FAST: Timeouts = { request: 3_000, turn: 5_000, exit: 2_000, progress: 2_000 };

test.describe('conformance checks against a conforming fake agent', () => {
  for (const check of ALL_CHECKS) {
    test(`${check.id} passes`, async () => {
      const r = await runCheck(fakeTarget(), check, FAST);
      expect(r.status, `${r.detail}\n${r.transcript}`).toBe('pass');
    });
  }
});

/** flaw -> the checks it must fail, with what the detail must say. */
const FLAWS: [flaw: string, checkId: string, detail: RegExp][] = [
  ['stdout-noise', 'transport.ndjson', /stdout line 1: the line is not JSON .*fake agent starting up/],
  ['string-id-mangled', 'jsonrpc.id-echo', /id "conformance-string-id-x" answers no request/],
  ['result-and-error', 'jsonrpc.result-xor-error', /exactly one of "result" and "error", it has both/],
  [
    'bad-permission-request',
    'schema.messages',
    /session\/request_permission params does not match schema \$defs\/RequestPermissionRequest/,
  ],
  ['bad-capabilities', 'schema.messages', /result of initialize does not match schema/],
  ['parse-error-silent', 'jsonrpc.parse-error', /an error response to the malformed line did not arrive/],
  ['no-exit', 'lifecycle.exit-on-stdin-close', /still running 2000 ms after stdin closed/],
  ['version-2', 'initialize.version-echo', /asked for 1, got protocolVersion 2/],
  [
    'version-2',
    'initialize.version-downgrade',
    /asked for 65535, got protocolVersion 2; the result does not match v2 schema \$defs\/InitializeResponse/,
  ],
  [
    'bad-capabilities',
    'initialize.capabilities',
    /does not match schema \$defs\/InitializeResponse: \/agentCapabilities\/loadSession must be boolean/,
  ],
  ['no-agent-info', 'initialize.agent-info', /no agentInfo/],
  [
    'silent-before-initialize',
    'initialize.before-initialize',
    /session\/new before initialize: .* did not arrive/,
  ],
  ['same-session-id', 'session.new-unique', /returned the same sessionId "fake-session"/],
  [
    'load-after-response',
    'session.load-replay',
    /history update\(s\) arrived after the session\/load response/,
  ],
  [
    'list-ignores-cwd',
    'session.list',
    /a cwd filter naming a directory without sessions returned 2 session\(s\)/,
  ],
  [
    'resume-replays',
    'session.resume',
    /session\/resume replayed 1 history update\(s\) \(first: user_message_chunk\)/,
  ],
  [
    'close-end-turn',
    'session.close',
    /the closed session's prompt ended with stopReason "end_turn", expected "cancelled"/,
  ],
  ['delete-keeps-listing', 'session.delete', /session\/list still lists the deleted session "fake-/],
  [
    'mode-unavailable',
    'session.modes',
    /currentModeId "missing" is not one of the availableModes \(ask, auto\)/,
  ],
  ['config-partial', 'session.config-options', /must answer the complete configOptions; missing "model"/],
  ['bad-stop-reason', 'prompt.stop-reason', /stopReason "done" is not one of end_turn/],
  ['update-wrong-session', 'prompt.update-session-id', /sessionId "other", not/],
  ['cancel-end-turn', 'prompt.cancel', /stopReason "end_turn", expected "cancelled"/],
  ['update-after-cancel', 'prompt.cancel', /1 session\/update\(s\) arrived after the prompt response/],
  ['permission-cancel-end-turn', 'prompt.cancel-permission', /stopReason "end_turn", expected "cancelled"/],
  ['cancel-leaks', 'prompt.cancel-no-leak', /the cancel leaked into it/],
  ['fs-unadvertised', 'client.no-fs-terminal', /called fs\/read_text_file/],
  ['unknown-method-internal-error', 'jsonrpc.unknown-method', /expected error -32601, got .*-32603/],
  [
    'no-param-validation',
    'jsonrpc.invalid-params',
    /session\/new \(cwd is a number, mcpServers a string\): expected error -32602, got \{"result"/,
  ],
  ['ext-request-ignored', 'ext.request', /the response to _conformance\/ping .* did not arrive/],
  ['ext-notification-answered', 'ext.notification', /the agent answered a notification/],
];

test.describe('each check fails on the flaw it targets', () => {
  for (const [flaw, id, detail] of FLAWS) {
    test(`${id} fails on ${flaw}`, async () => {
      const r = await runCheck(fakeTarget(flaw), checkById(id), FAST);
      expect(r.status, r.transcript).toBe('fail');
      expect(r.detail).toMatch(detail);
    });
  }

  test('every check has at least one flaw that fails it', () => {
    const covered = new Set(FLAWS.map(([, id]) => id));
    expect(ALL_CHECKS.map((c) => c.id).filter((id) => !covered.has(id))).toEqual([]);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('an agent that ignores the end of stdin is killed: no process is left behind', async () => {
  const r = await runCheck(fakeTarget('no-exit'), checkById('lifecycle.exit-on-stdin-close'), FAST);
  expect(r.status).toBe('fail');
  expect(r.pids).toHaveLength(1);
  expect(r.pids.filter(alive)).toEqual([]);
  expect(r.transcript).toContain('## exit: signal SIGKILL, killed by the client');
});

test('a check that does not apply is skipped with the reason', async () => {
  const r = await runCheck(fakeTarget('no-load-session'), checkById('session.load-replay'), FAST);
  expect(r.status).toBe('skip');
  expect(r.detail).toBe('the agent does not declare agentCapabilities.loadSession');
});

test('the session surface checks are skipped, with the reason, for an agent that offers none of it', async () => {
  const skipped: Record<string, string> = {};
  for (const id of [
    'session.list',
    'session.resume',
    'session.close',
    'session.delete',
    'session.modes',
    'session.config-options',
  ]) {
    const r = await runCheck(fakeTarget('no-session-capabilities'), checkById(id), FAST);
    expect(r.status, r.detail).toBe('skip');
    skipped[id] = r.detail;
  }
  expect(skipped).toEqual({
    'session.list': 'the agent does not declare agentCapabilities.sessionCapabilities.list',
    'session.resume': 'the agent does not declare agentCapabilities.sessionCapabilities.resume',
    'session.close': 'the agent does not declare agentCapabilities.sessionCapabilities.close',
    'session.delete': 'the agent does not declare agentCapabilities.sessionCapabilities.delete',
    'session.modes': 'session/new returned no modes',
    'session.config-options': 'session/new returned no configOptions',
  });
});

test('an agent command that does not exist fails the check naming the command, with no hang', async () => {
  const target = { name: 'missing', command: '/nonexistent/acp-agent', args: [] };
  const r = await runCheck(target, checkById('initialize.version-echo'), FAST);
  expect(r.status).toBe('fail');
  expect(r.detail).toBe(
    'WaitError: agent command not found: /nonexistent/acp-agent (waiting for the response to initialize (id 1))',
  );
});

test.describe('agents nobody here wrote: traits the kit must not count as violations', () => {
  test('session-level updates after the prompt response are not turn output', async () => {
    for (const id of ['prompt.cancel', 'prompt.cancel-permission', 'session.close']) {
      const r = await runCheck(fakeTarget('late-session-updates'), checkById(id), FAST);
      expect(r.status, `${id}: ${r.detail}`).toBe('pass');
      // The fake did send them after the response: the pass is not for want of late updates.
      expect(r.transcript).toMatch(
        /"id":\d+,"result":\{"stopReason":"cancelled"\}\}\n< .*available_commands_update/,
      );
    }
  });

  test('an agent that answers a newer request with 2, in the v2 shape, passes the downgrade check', async () => {
    const r = await runCheck(fakeTarget('latest-v2'), checkById('initialize.version-downgrade'), FAST);
    expect(`${r.status}: ${r.detail}`).toBe('pass: asked for 65535, got 2 (valid under the v2 schema)');
  });

  test('session-level updates as a turn starts are no sign it runs: cancel and close wait for its output', async () => {
    for (const id of ['prompt.cancel', 'session.close']) {
      const r = await runCheck(fakeTarget('session-updates-first'), checkById(id), FAST);
      // A cancel or close sent on the early updates reaches the fake before its turn starts and is lost.
      expect(r.status, `${id}: ${r.detail}`).toBe('pass');
      expect(r.transcript).toContain('"sessionUpdate":"session_info_update"');
    }
  });

  test('a check that needs a tool call is skipped, not passed, when the agent called none', async () => {
    const r = await runCheck(fakeTarget('no-tool-call'), checkById('client.no-fs-terminal'), FAST);
    expect(`${r.status}: ${r.detail}`).toBe(
      'skip: the agent called no tool during the turn, so it had no reason to read a file',
    );
  });

  test("session.load-replay compares the model's text, not notices the agent adds to a live turn", async () => {
    const r = await runCheck(fakeTarget('live-notice'), checkById('session.load-replay'), FAST);
    expect(r.status, r.detail).toBe('pass');
    expect(r.transcript).toContain('Notice: live turns only.');
    // A replay that loses the model's text still fails.
    const lost = await runCheck(fakeTarget('load-drops-agent-text'), checkById('session.load-replay'), FAST);
    expect(lost.detail).toMatch(/does not contain the model's text "Hello from the fake agent."/);
  });

  test('a child process that outlives the agent is gone before the check deletes its HOME', async () => {
    const r = await runCheck(fakeTarget('orphan-child'), checkById('initialize.version-echo'), FAST);
    expect(r.status, r.detail).toBe('pass');
    const pid = Number(/orphan pid (\d+)/.exec(r.transcript)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0), `orphan ${pid} still running`).toThrow(/ESRCH/);
  });

  test('an inherited variable does not reach the agent; a declared one does', async () => {
    const check = checkById('session.new-unique');
    process.env.FAKE_POISON = 'inherited';
    try {
      const clean = await runCheck(fakeTarget(), check, FAST);
      expect(clean.status, clean.detail).toBe('pass');
      const declared = { ...fakeTarget(), env: { FAKE_POISON: 'declared' } };
      delete declared.prepare;
      const r = await runCheck(declared, check, FAST);
      expect(r.status).toBe('fail');
      expect(r.detail).toContain('the inherited FAKE_POISON=declared broke session/new');
    } finally {
      delete process.env.FAKE_POISON;
    }
  });

  test('an agent installed from npm is found through a node_modules/.bin entry of PATH', async () => {
    const bin = join(mkdtempSync(join(tmpdir(), 'conformance-npm-')), 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    const exe = join(bin, 'fake-acp');
    writeFileSync(exe, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}"\n`);
    chmodSync(exe, 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      const r = await runCheck(
        profileTarget({ command: ['fake-acp'] }),
        checkById('initialize.version-echo'),
        FAST,
      );
      expect(r.status, r.detail).toBe('pass');
    } finally {
      process.env.PATH = saved;
    }
  });

  test('each check gets a fresh HOME: state one check leaves behind does not reach the next', async () => {
    const check = checkById('initialize.version-echo');
    const results = await runChecks(fakeTarget('first-run-only'), [check, check, check], {
      jobs: 1,
      timeouts: FAST,
    });
    expect(results.map((r) => `${r.status}: ${r.detail}`)).toEqual(Array(3).fill('pass: protocolVersion 1'));
    // Within one check the HOME is shared: a second process there sees the first one's state.
    const twice = await runCheck(fakeTarget('first-run-only'), checkById('session.load-replay'), FAST);
    expect(twice.detail).toMatch(/this HOME was used by an earlier check/);
  });

  test('the deadline scale multiplies every deadline, and a profile exitGraceMs replaces the exit deadline', async () => {
    expect(scaleTimeouts(FAST, 3)).toEqual({ request: 9_000, turn: 15_000, exit: 6_000, progress: 6_000 });
    expect(() => scaleTimeouts(FAST, 0)).toThrow('the deadline scale must be a positive number, got 0');
    const exit = checkById('lifecycle.exit-on-stdin-close');
    const scaled = await runCheck(fakeTarget('no-exit'), exit, { timeouts: FAST, deadlineScale: 0.25 });
    expect(scaled.detail).toBe('still running 500 ms after stdin closed (killed)');
    const profile = profileTarget({
      command: [process.execPath, FAKE_AGENT],
      env: { FAKE_FLAW: 'no-exit' },
      exitGraceMs: 300,
    });
    const graced = await runCheck(profile, exit, { timeouts: FAST, deadlineScale: 2 });
    expect(graced.detail).toBe('still running 600 ms after stdin closed (killed)');
  });
});

test.describe('agent profiles as targets', () => {
  test('HOME files of the profile are placed in each fresh HOME, with placeholders expanded', async () => {
    const target = profileTarget({
      command: [process.execPath, FAKE_AGENT],
      home: { '.fake/agent-name': 'profiled-fake\n', '.fake/where.txt': '{{home}} {{cwd}}' },
    });
    const r = await runCheck(target, checkById('initialize.agent-info'), FAST);
    expect(r.status, r.detail).toBe('pass');
    expect(r.agentInfo).toEqual({ name: 'profiled-fake', version: '1.0.0' });
    expect(r.level).toBe('advisory');
  });

  test("a profile's exit: 'signal' ends the agent with SIGTERM at once instead of waiting out the grace", async () => {
    const target = profileTarget({
      command: [process.execPath, FAKE_AGENT],
      env: { FAKE_FLAW: 'no-exit' },
      exit: 'signal',
      exitGraceMs: 1500,
    });
    const r = await runCheck(target, checkById('initialize.version-echo'), FAST);
    expect(r.status, r.detail).toBe('pass');
    expect(r.transcript).toMatch(/## exit: signal SIGTERM$/);
    const plain = await runCheck(
      profileTarget({
        command: [process.execPath, FAKE_AGENT],
        env: { FAKE_FLAW: 'no-exit' },
        exitGraceMs: 300,
      }),
      checkById('initialize.version-echo'),
      FAST,
    );
    expect(plain.transcript).toMatch(/## exit: signal SIGKILL, killed by the client$/);
  });

  test("a profile's clientCapabilities are advertised and the fs methods it names are served", async () => {
    const target = profileTarget({
      command: [process.execPath, FAKE_AGENT],
      env: { FAKE_FLAW: 'fs-unadvertised', FAKE_TURNS: 'file' },
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
    });
    const r = await runCheck(target, checkById('client.no-fs-terminal'), FAST);
    expect(r.status, r.detail).toBe('pass');
    expect(r.transcript).toContain('"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":false}');
    // The read of a file that does not exist is answered as a client would: resource not found.
    expect(r.transcript).toMatch(
      /> \{"jsonrpc":"2.0","id":[^,]+,"error":\{"code":-32002,"message":"Resource not found: \/tmp\/README.md"/,
    );
    expect(() => parseProfile({ command: ['x'], clientCapabilities: { terminal: true } }, 'p.json')).toThrow(
      'clientCapabilities.terminal: the conformance client offers no terminal: leave terminal out or false',
    );
  });

  test('a bad profile is refused naming the field and the shape', () => {
    expect(() => parseProfile({ command: [], env: { A: 1 } }, 'my-profile.json')).toThrow(
      /^my-profile.json: not an agent profile:\n {2}command: the command needs at least the executable\n {2}env.A: /,
    );
    expect(() => parseProfile({ command: ['x'], env: { A: '{{modelUrl}}' } }, 'p.json')).toThrow(
      'p.json: env.A: unknown placeholder {{modelUrl}}; known: {{modelBaseUrl}}, {{home}}, {{cwd}}, {{tmp}}',
    );
    expect(() => parseProfile({ command: ['x'], home: { '../escape': '' } }, 'p.json')).toThrow(
      'p.json: home["../escape"]: a HOME file path must be relative to HOME and stay inside it',
    );
  });

  test('a model-turn check is skipped, not passed or failed, when the agent asks the stand-in for something it does not serve', async () => {
    // The fake calls no model; a tiny "agent" that asks for an API no wire format answers is enough to see it.
    const target = profileTarget({
      command: [process.execPath, FAKE_AGENT],
      env: { FAKE_MODEL_URL: '{{modelBaseUrl}}/v1/embeddings' },
    });
    const r = await runCheck(target, checkById('client.no-fs-terminal'), FAST);
    expect(r.status, r.detail).toBe('skip');
    expect(r.detail).toMatch(
      /^the agent asked the model stand-in for POST \/v1\/embeddings, which it does not serve \(the check saw: skip: the agent called no tool/,
    );
  });
});
