/**
 * The `acp` fixture against real agents: our agent (no model call needed for the session surface) and
 * a command that does not exist. What a test author observes: the responses, the wire kept as written,
 * and error messages that name the request and the cause.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startModelServer, writeExchangeLog } from '@acp-snapshot/model-http';
import { startFakeUpstream } from '@acp-snapshot/model-http/testing';
import { test as fixtures } from '../fixtures.js';
import { acpSnapshotTexts, expect, fileName } from '../matchers.js';
import { REPO_ROOT } from '../scenario/corpus.js';
import { AcpClient } from './acp-client.js';

const ours = [
  process.execPath,
  join(REPO_ROOT, 'agent/dist/main.js'),
  '--overlay',
  join(REPO_ROOT, 'agent/overlays/replay.json'),
];

fixtures.describe('our agent', () => {
  // Its replay overlay needs a recording to serve; these tests make no model call.
  fixtures.use({
    agentProfile: { command: ours },
    model: { kind: 'replay', log: join(REPO_ROOT, 'fixtures/scenarios/no-model/session.jsonl') },
  });

  fixtures('modes, config options, list and close through the acp fixture', async ({ acp, roots }) => {
    const init = await acp.initialize();
    expect(init.agentCapabilities?.sessionCapabilities?.list).toBeDefined();
    const session = await acp.newSession();
    expect(session.modes?.availableModes.map((m) => m.id)).toContain('auto');
    await acp.setMode('auto');
    const listed = await acp.listSessions();
    expect(listed.sessions.map((s) => s.sessionId)).toContain(session.sessionId);
    await acp.closeSession();
    expect(await acp.close()).toBe(true);
    const { stdout, workspace } = await acpSnapshotTexts(acp);
    expect(stdout).toContain('"sessionUpdate":"current_mode_update"');
    expect(stdout).toContain('"currentModeId":"auto"');
    // The roots are replaced, the ids numbered: nothing of this run's directories is left.
    expect(stdout).not.toContain(roots.root);
    expect(stdout).toContain('"cwd":"{{cwd}}"');
    expect(workspace).toBe('{\n  "files": []\n}\n');
    // Kept exactly as written, one entry per line.
    expect(acp.stdout.length).toBe(stdout.trimEnd().split('\n').length);
  });

  fixtures('a request before newSession names what to call first', async ({ acp }) => {
    await acp.initialize();
    await expect(acp.prompt('hi')).rejects.toThrow(
      'prompt: no session yet (call acp.newSession() or acp.loadSession(id) first)',
    );
  });
});

fixtures.describe('our agent, from a client that declares extensions as an editor does', () => {
  fixtures.use({
    agentProfile: { command: ours },
    model: { kind: 'replay', log: join(REPO_ROOT, 'fixtures/scenarios/no-model/session.jsonl') },
    terminal: true,
    clientMeta: { terminal_output: true },
  });

  fixtures('clientMeta is the _meta of the client capabilities initialize sends', async ({ acp }) => {
    await acp.initialize();
    const init = JSON.parse(acp.sent[0]!.text);
    expect(init.method).toBe('initialize');
    expect(init.params.clientCapabilities).toEqual({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      _meta: { terminal_output: true },
    });
    await acp.close();
  });
});

fixtures.describe('an agent that is not there', () => {
  fixtures.use({ agentProfile: { command: ['/nonexistent/agent-binary', '--acp'] } });

  fixtures('the first request fails naming the command', async ({ acp }) => {
    await expect(acp.initialize()).rejects.toThrow(
      'agent command not found: /nonexistent/agent-binary --acp',
    );
  });
});

fixtures.describe('an agent that exits at start', () => {
  fixtures.use({
    agentProfile: { command: [process.execPath, '-e', 'console.error("no config found"); process.exit(3)'] },
  });

  fixtures('the request fails naming the exit code and the end of stderr', async ({ acp }) => {
    await expect(acp.initialize()).rejects.toThrow(/initialize: .*exited \(3\)[\s\S]*no config found/);
  });
});

fixtures.describe('our agent replaying a recording', () => {
  fixtures.use({
    agentProfile: { command: ours },
    model: { kind: 'replay', log: join(REPO_ROOT, 'fixtures/scenarios/hello/session.jsonl') },
  });

  fixtures(
    'a replayed log matches the snapshot its recording wrote: the replay plugin is not a change',
    async ({ acp }, testInfo) => {
      await acp.initialize();
      await acp.newSession();
      expect((await acp.prompt('Say hello in one short sentence.')).stopReason).toBe('end_turn');
      expect(await acp.close()).toBe(true);
      const { stdout, workspace, log } = await acpSnapshotTexts(acp);
      expect(log).toContain('"provider":{"plugin":"replay"');
      // The snapshots as the recording run (a live model, the openai-compatible plugin) wrote them.
      const dir = fileName(testInfo.title);
      const files = {
        'stdout.jsonl': stdout,
        'workspace.json': workspace,
        'session.jsonl': log!.replace('"plugin":"replay"', '"plugin":"openai-compatible"'),
      };
      const paths = Object.keys(files).map((f) => testInfo.snapshotPath(dir, f));
      try {
        for (const [f, text] of Object.entries(files)) {
          await mkdir(dirname(testInfo.snapshotPath(dir, f)), { recursive: true });
          await writeFile(testInfo.snapshotPath(dir, f), text);
        }
        await expect(acp).toMatchAcpSnapshot();
      } finally {
        await Promise.all(paths.map((p) => rm(p, { force: true })));
        await rm(dirname(paths[0]!), { recursive: true, force: true });
      }
    },
  );
});

const FAKE = join(import.meta.dirname, '..', 'testing', 'agents', 'fake-agent.mjs');

fixtures.describe('an agent that never exits when stdin closes', () => {
  fixtures.describe('with the default exit policy', () => {
    fixtures.use({ agentProfile: { command: [process.execPath, FAKE, 'stubborn'], exitGraceMs: 300 } });

    fixtures(
      'close() kills it after the grace period and the problem names the profile setting',
      async ({ acp }) => {
        await acp.initialize();
        expect(await acp.close()).toBe(false);
        expect(acp.problems).toEqual([
          'agent process 1 did not exit within 300 ms after stdin closed; its process group was killed (an agent that never exits on stdin close needs `exit: "signal"` in its profile)',
        ]);
      },
    );
  });

  fixtures.describe('with exit: "signal"', () => {
    fixtures.use({
      agentProfile: { command: [process.execPath, FAKE, 'stubborn'], exitGraceMs: 5000, exit: 'signal' },
    });

    fixtures('close() ends it with SIGTERM at once: a graceful exit, no problem', async ({ acp }) => {
      await acp.initialize();
      // True means it exited before the grace period ran out; without the signal it never would.
      expect(await acp.close()).toBe(true);
      expect(acp.problems).toEqual([]);
    });
  });
});

fixtures.describe('an agent whose session-level updates come after the response, in either order', () => {
  fixtures.use({
    agentProfile: {
      command: [process.execPath, FAKE, 'late-updates'],
      normalize: { anytimeUpdates: ['available_commands_update', 'session_info_update'] },
    },
  });
  const kinds = (stdout: string) =>
    stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).params?.update?.sessionUpdate)
      .filter(Boolean);

  for (const order of ['title,commands', 'commands,title']) {
    fixtures(
      `close() waits for the updates the snapshot holds; their order is not compared (${order})`,
      async ({ acp }, testInfo) => {
        // The snapshot a recording wrote: both updates, in the other race's order.
        const snapshot = testInfo.snapshotPath(fileName(testInfo.title), 'stdout.jsonl');
        const line = (update: object) =>
          JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update } });
        await mkdir(dirname(snapshot), { recursive: true });
        await writeFile(
          snapshot,
          `${line({ sessionUpdate: 'session_info_update', title: 'A title' })}\n${line({ sessionUpdate: 'available_commands_update', availableCommands: [] })}\n`,
        );
        try {
          await acp.initialize();
          await acp.newSession();
          expect((await acp.prompt(order)).stopReason).toBe('end_turn');
          // No settleMs: close() waits for a condition, both updates.
          expect(await acp.close()).toBe(true);
          const { stdout } = await acpSnapshotTexts(acp);
          expect(kinds(stdout).slice(-2)).toEqual(['available_commands_update', 'session_info_update']);
        } finally {
          await rm(dirname(snapshot), { recursive: true, force: true });
        }
      },
    );
  }
});

fixtures.describe('an agent whose late notifications are of no kind its profile names', () => {
  // No anytime updates, and a quiet period longer than the test's timeout: only the snapshot's length ends the wait.
  fixtures.use({ agentProfile: { command: [process.execPath, FAKE, 'late-updates'], settleMs: 60_000 } });

  fixtures(
    "close() in a replay ends the profile's quiet period once the stdout holds as many lines as the snapshot",
    async ({ acp }, testInfo) => {
      const snapshot = testInfo.snapshotPath(fileName(testInfo.title), 'stdout.jsonl');
      await mkdir(dirname(snapshot), { recursive: true });
      // initialize, session/new and the prompt's responses, then the two updates 300 and 450 ms after it.
      await writeFile(snapshot, '{}\n'.repeat(5));
      try {
        await acp.initialize();
        await acp.newSession();
        expect((await acp.prompt('title,commands')).stopReason).toBe('end_turn');
        expect(acp.stdout).toHaveLength(3);
        expect(await acp.close()).toBe(true);
        expect(acp.stdout.map((l) => JSON.parse(l.text).params?.update?.sessionUpdate).slice(3)).toEqual([
          'session_info_update',
          'available_commands_update',
        ]);
      } finally {
        await rm(dirname(snapshot), { recursive: true, force: true });
      }
    },
  );
});

fixtures.describe('an agent that calls its model after the turn, writing nothing', () => {
  const PROMPT = 'later a title for this session';
  fixtures.use({
    // A quiet period longer than the test's timeout: only the recording's calls, all made, end the wait.
    agentProfile: {
      command: [process.execPath, FAKE, 'model'],
      env: { MODEL_URL: '{{modelBaseUrl}}' },
      settleMs: 60_000,
    },
    // The recording: the call the agent makes, as it makes it (Node's fetch, the same body).
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
    model: async ({}, use, testInfo) => {
      const up = await startFakeUpstream({ deltas: ['A title'] });
      const rec = await startModelServer({ mode: 'record', upstream: { baseUrl: up.url } });
      try {
        const r = await fetch(`${rec.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'fake', messages: [{ role: 'user', content: PROMPT }] }),
        });
        await r.text();
      } finally {
        await rec.close();
        await up.close();
      }
      const exchanges = testInfo.outputPath('recorded', 'exchanges.jsonl');
      await mkdir(dirname(exchanges), { recursive: true });
      writeExchangeLog(exchanges, rec.exchanges, {
        sidecarsDir: testInfo.outputPath('recorded', 'sidecars'),
      });
      await use({ kind: 'http', exchanges });
    },
  });

  fixtures(
    'close() in a replay waits until the recorded model calls have been made',
    async ({ acp, httpModel }, testInfo) => {
      const snapshot = testInfo.snapshotPath(fileName(testInfo.title), 'stdout.jsonl');
      await mkdir(dirname(snapshot), { recursive: true });
      try {
        await acp.initialize();
        await acp.newSession();
        expect((await acp.prompt(PROMPT)).stopReason).toBe('end_turn');
        // Everything the snapshot holds has come: the responses of initialize, session/new and the prompt.
        await writeFile(snapshot, acp.stdout.map((l) => `${l.text}\n`).join(''));
        expect(httpModel!.calls).toBe(0);
        expect(await acp.close()).toBe(true);
        expect(httpModel!.calls).toBe(1);
        expect(httpModel!.replayFailure()).toBeUndefined();
      } finally {
        await rm(dirname(snapshot), { recursive: true, force: true });
      }
    },
  );
});

fixtures.describe('an HTTP model replay that fails, and a stdout that differs with it', () => {
  fixtures.use({
    agentProfile: { command: [process.execPath, FAKE, 'model'], env: { MODEL_URL: '{{modelBaseUrl}}' } },
    // Recorded calling no model: any request now is drift.
    model: {
      kind: 'http',
      exchanges: join(REPO_ROOT, 'test-results', 'no-such-recording', 'exchanges.jsonl'),
    },
  });

  fixtures(
    'the replay failure comes first and no command that accepts snapshots is suggested',
    async ({ acp }, testInfo) => {
      const snapshot = testInfo.snapshotPath(fileName(testInfo.title), 'stdout.jsonl');
      const recorded = '{"jsonrpc":"2.0","id":0,"result":{"recorded":"before the drift"}}\n';
      await mkdir(dirname(snapshot), { recursive: true });
      await writeFile(snapshot, recorded);
      try {
        await acp.initialize();
        await acp.newSession();
        expect((await acp.prompt('Say goodbye instead.')).text).toBe('model error 400');
        await acp.close();
        const error: Error = await expect(acp)
          .toMatchAcpSnapshot()
          .then(
            () => new Error('passed'),
            (e: Error) => e,
          );
        const lines = error.message.split('\n');
        expect(lines[0]).toMatch(/^model-http replay \(.*\): 1 problem\(s\) in 1 model call\(s\):$/);
        expect(error.message).toContain('call 1 (POST /v1/chat/completions) matches no recorded exchange');
        expect(error.message).toContain(
          'The snapshots below differ after a failed model replay: fix the replay (or record again) first; do not accept them.',
        );
        expect(error.message).toMatch(/stdout\S*\.jsonl differs at line 1/);
        expect(error.message).toMatch(
          /workspace\S*\.json: no snapshot yet \(not written: the model replay failed\)/,
        );
        expect(error.message).not.toContain('--update-snapshots');
        expect(error.message).not.toContain('accept it');
        // Nothing was written over the snapshot.
        expect(await readFile(snapshot, 'utf8')).toBe(recorded);
      } finally {
        await rm(dirname(snapshot), { recursive: true, force: true });
      }
    },
  );
});

fixtures.describe("an agent that prints its model server's address and writes it into the workspace", () => {
  fixtures.use({
    agentProfile: { command: [process.execPath, FAKE, 'model-url'], env: { MODEL_URL: '{{modelBaseUrl}}' } },
    model: {
      kind: 'http',
      exchanges: join(REPO_ROOT, 'test-results', 'no-such-recording', 'exchanges.jsonl'),
    },
  });

  fixtures('the address is a placeholder on every surface, whatever the port', async ({ acp, httpModel }) => {
    await acp.initialize();
    await acp.newSession();
    expect(await acp.close()).toBe(true);
    const { port } = new URL(httpModel!.url);
    const raw = acp.stdout.map((l) => l.text).join('\n');
    expect(raw).toContain(`127.0.0.1:${port}`);
    const { stdout, workspace } = await acpSnapshotTexts(acp);
    expect(stdout).toContain('warning: auto mode talks to {{modelHost}}; using {{modelBaseUrl}}/v1');
    expect(workspace).toContain('{{modelBaseUrl}}/v1');
    expect(`${stdout}${workspace}`).not.toContain(`:${port}`);
  });
});

fixtures.describe('cancel and kill points of a prompt, as a scenario has them', () => {
  // Each prompt's text says what the turn does (see the fake agent's "turns" mode).
  fixtures.use({ agentProfile: { command: [process.execPath, FAKE, 'turns'] } });
  /** The messages one direction of the wire carried, parsed, with the process that sent or got them. */
  const wire = (lines: { text: string; process: number }[]) =>
    lines.map((l) => ({ ...JSON.parse(l.text), process: l.process }));

  fixtures(
    'a cancel point sends session/cancel after the first message chunk, behind the prompt',
    async ({ acp }) => {
      await acp.initialize();
      await acp.newSession();
      const r = await acp.prompt('chunks=1 then=wait', { cancel: { after: 'first_message_chunk' } });
      expect(r.stopReason).toBe('cancelled');
      expect(r.text).toBe('chunk 1');
      const sent = wire(acp.sent).map((m) => m.method ?? 'response');
      expect(sent).toEqual(['initialize', 'session/new', 'session/prompt', 'session/cancel']);
      expect(wire(acp.sent).at(-1).params).toEqual({ sessionId: 'fake-session' });
      // The agent had sent one chunk when the cancel came, and answered the prompt with cancelled.
      expect(wire(acp.stdout).at(-1).result).toMatchObject({ stopReason: 'cancelled', _meta: { sent: 1 } });
      expect(acp.problems).toEqual([]);
    },
  );

  fixtures(
    'waitForUpdate with a count waits for the second message chunk, counting the turn has had, before a cancel',
    async ({ acp }) => {
      await acp.initialize();
      await acp.newSession();
      // Two pieces 300 ms apart, then the stream stays open: a cancel after the first would race the second.
      const turn = acp.promptInFlight('chunks=2 gapMs=300 then=wait');
      await acp.waitForUpdate('agent_message_chunk');
      const second = await acp.waitForUpdate('agent_message_chunk', { count: 2 });
      expect(second.content).toEqual({ type: 'text', text: 'chunk 2' });
      // Asked again once both are in: resolved from the turn's own updates, nothing more awaited.
      expect((await acp.waitForUpdate('agent_message_chunk', { count: 2 })).content).toEqual(second.content);
      await acp.cancel();
      const r = await turn;
      expect(r).toMatchObject({ stopReason: 'cancelled', text: 'chunk 1chunk 2' });
      expect(wire(acp.stdout).at(-1).result).toMatchObject({ _meta: { sent: 2 } });
      expect(() => acp.waitForUpdate('agent_message_chunk', { count: 0 })).toThrow(
        "waitForUpdate('agent_message_chunk', { count: 0 }): count is a whole number from 1",
      );
    },
  );

  fixtures('a cancel point at a permission request answers it cancelled', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    await acp.prompt('then=ask', { cancel: { after: 'permission_request' } });
    const asked = wire(acp.stdout).find((m) => m.method === 'session/request_permission');
    const answer = wire(acp.sent).find((m) => m.id === asked.id && !m.method);
    expect(answer.result).toEqual({ outcome: { outcome: 'cancelled' } });
    expect(acp.problems).toEqual([]);
  });

  fixtures(
    'a kill point SIGKILLs the agent mid-turn: no response; a restart loads the session and goes on',
    async ({ acp }) => {
      await acp.initialize();
      await acp.newSession();
      const killed = await acp.prompt('chunks=3 then=hang', { kill: { afterUpdates: 3 } });
      expect(killed).toEqual({ killed: true, updates: expect.any(Array), text: 'chunk 1chunk 2chunk 3' });
      expect(acp.processes.map((p) => p.exit)).toEqual(['SIGKILL']);
      // The prompt (id 2 of process 1) has no response on the wire.
      expect(
        wire(acp.stdout)
          .filter((m) => 'result' in m)
          .map((m) => m.id),
      ).toEqual([0, 1]);
      await acp.restart();
      await acp.initialize();
      await acp.loadSession();
      expect((await acp.prompt('chunks=1 then=end')).stopReason).toBe('end_turn');
      expect(await acp.close()).toBe(true);
      expect(acp.processes.map((p) => p.exit)).toEqual(['SIGKILL', 0]);
      expect(acp.problems).toEqual([]);
    },
  );

  fixtures('a kill at a permission request leaves it unanswered', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    expect(await acp.prompt('then=ask', { kill: { after: 'permission_request' } })).toMatchObject({
      killed: true,
    });
    const asked = wire(acp.stdout).find((m) => m.method === 'session/request_permission');
    expect(asked).toBeDefined();
    expect(wire(acp.sent).filter((m) => m.id === asked.id && !m.method)).toEqual([]);
    expect(acp.processes.map((p) => p.exit)).toEqual(['SIGKILL']);
  });

  fixtures('a kill point the turn never reaches is a problem naming the prompt', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    const r = await acp.prompt('chunks=1 then=end', { kill: { afterUpdates: 5 } });
    expect(r).toMatchObject({ stopReason: 'end_turn' });
    expect(acp.problems).toEqual([
      'session/prompt "chunks=1 then=end": the kill point (after 5 update(s)) was never reached: the prompt ended with stop reason "end_turn" first',
    ]);
    expect(await acp.close()).toBe(true);
  });
});

fixtures(
  'clients leave no async context storage behind: a worker is not slower for the tests it ran',
  async () => {
    // Node 20's AsyncLocalStorage calls `_propagate` on every enabled storage for every promise created, and a
    // storage stays enabled once it has run: one per client made each promise cost more with every test.
    const proto = AsyncLocalStorage.prototype as unknown as { _propagate?: (...a: unknown[]) => void };
    const original = proto._propagate;
    fixtures.skip(!original, 'this Node keeps async context without per-storage propagation');
    for (let i = 0; i < 200; i++) {
      const client = new AcpClient({ command: ['/bin/false'], env: {}, cwd: '/' });
      await client.step(`step ${i}`, async () => {
        await Promise.resolve();
      });
      await client.dispose();
    }
    let calls = 0;
    proto._propagate = function (this: unknown, ...args: unknown[]) {
      calls++;
      return original!.apply(this, args);
    };
    try {
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      proto._propagate = original;
    }
    // Playwright's own storages and ours, not one per client.
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(20);
  },
);
