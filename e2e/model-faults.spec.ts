/**
 * Provider faults through the package's fixtures, on a real agent process (ours, through its
 * OpenAI-compatible plugin pointed at `{{modelBaseUrl}}`): a turn recorded against the bundled emulator
 * with a 429 in place of the first call (the agent's SDK retries; only the retry reaches the upstream and
 * is recorded), then replayed keylessly under the same fault, giving the same ACP wire; and a stall after a
 * few frames, ended by the user's cancel, on the recording's answer.
 */
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, startEmulator } from '@acp-snapshot/emulator';
import { acpSnapshotTexts, expect, type ModelFault, test } from '@acp-snapshot/playwright';
import { HELLO_SCRIPT, OUR_AGENT_OVER_HTTP } from './our-agent-over-http.js';

const ours = OUR_AGENT_OVER_HTTP;

const dir = await mkdtemp(join(tmpdir(), 'acp-model-faults-'));
const exchanges = join(dir, 'scenarios', 'rate-limited', 'exchanges.jsonl');
const UPSTREAM = 'ACP_MODEL_FAULTS_TEST_UPSTREAM';
const PROMPT = 'Say hello and tell me where you are working.';
// The OpenAI SDK waits its own back-off on `retry-after: 0`; a millisecond keeps the test fast.
const RATE_LIMITED: ModelFault = { kind: 'status', status: 429, retryAfter: 0.001, call: 1 };
let emulator: Emulator | undefined;
let liveStdout = '';
let answer = '';

test.describe.configure({ mode: 'serial' });
test.afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

test.describe('recorded', () => {
  test.beforeAll(async () => {
    emulator = await startEmulator({ script: HELLO_SCRIPT });
    process.env[UPSTREAM] = emulator.url;
  });
  test.use({
    agentProfile: ours,
    model: { kind: 'http', record: 'all', exchanges, upstream: { baseUrlEnv: UPSTREAM } },
    modelFaults: { 'rate limited': RATE_LIMITED },
  });

  test('a 429 on the first call while recording: the retry is what reaches the model and the log', async ({
    acp,
    httpModel,
    roots,
  }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt(PROMPT);
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toContain('Hello 👋 你好! I am working in ');
    answer = turn.text.replaceAll(roots.cwd, '<cwd>');
    await acp.close();
    liveStdout = (await acpSnapshotTexts(acp)).stdout;
    expect(httpModel!.calls).toBe(2);
    expect(emulator!.requests.length).toBe(1);
  });
});

test.describe('a 401 on the only call, recorded then replayed with nothing recorded', () => {
  const unauthorized = join(dir, 'scenarios', 'unauthorized', 'exchanges.jsonl');
  let recordedStdout = '';
  for (const mode of ['record', 'replay'] as const) {
    test.describe(mode, () => {
      test.use({
        agentProfile: ours,
        // The upstream (the emulator above: record checks it listens) is never reached: the fault answers the only call.
        model: {
          kind: 'http',
          record: mode === 'record' ? 'all' : 'none',
          exchanges: unauthorized,
          upstream: { baseUrlEnv: UPSTREAM },
        },
        modelFaults: { 'key revoked': { kind: 'status', status: 401 } },
      });

      test(`${mode}: the agent reports the provider's 401 and no exchange log is needed`, async ({
        acp,
        httpModel,
      }) => {
        await acp.initialize();
        await acp.newSession();
        const outcome = await acp.prompt(PROMPT).then(
          (r) => r.stopReason,
          (e: Error) => e.message,
        );
        // The provider's own 401 body reaches the user, as from a real provider.
        expect(outcome).toContain(
          'model provider returned HTTP 401 (unauthorized): Incorrect API key provided.',
        );
        await acp.close();
        const { stdout } = await acpSnapshotTexts(acp);
        expect(stdout).toContain('"data":{"code":"unauthorized","status":401,"turn":1}');
        // Not retried. In record mode the test's finish writes no log and does not refuse for want of one.
        expect(httpModel!.calls).toBe(1);
        if (mode === 'record') recordedStdout = stdout;
        else expect(stdout).toBe(recordedStdout);
      });
    });
  }
  test.afterAll(() => {
    expect(existsSync(unauthorized)).toBe(false);
  });
});

test.describe('replayed', () => {
  test.use({
    agentProfile: ours,
    model: { kind: 'http', exchanges },
    modelFaults: { 'rate limited': RATE_LIMITED },
  });
  test.beforeAll(async () => {
    // Keyless and offline: the upstream is gone.
    await emulator?.close();
    emulator = undefined;
    delete process.env[UPSTREAM];
  });

  test('429 then success: the agent retries, the wire is the recorded one with no trace of the error', async ({
    acp,
    httpModel,
    roots,
  }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt(PROMPT);
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text.replaceAll(roots.cwd, '<cwd>')).toBe(answer);
    await acp.close();
    const { stdout } = await acpSnapshotTexts(acp);
    expect(liveStdout, 'the recording ran first').not.toBe('');
    expect(stdout).toBe(liveStdout);
    expect(stdout).not.toMatch(/\b429\b/);
    expect(httpModel!.calls).toBe(2);
  });

  test.describe('a fault that never fires', () => {
    test.use({
      modelFaults: {
        'rate limited': RATE_LIMITED,
        'cut at goodbye': { kind: 'cut', afterFrames: 2, lastUserMessage: 'goodbye' },
      },
    });

    test('fails the test, naming the fault and the calls that were made', async ({ acp, httpModel }) => {
      await acp.initialize();
      await acp.newSession();
      expect((await acp.prompt(PROMPT)).stopReason).toBe('end_turn');
      await acp.close();
      const verdict = await httpModel!.verdict();
      expect(verdict.ok).toBe(false);
      expect(verdict.message).toContain(
        'fault "cut at goodbye" (cut after 2 frame(s)) on last user message containing "goodbye" never fired',
      );
      expect(verdict.message).toContain(`call 1 (POST /chat/completions, last user message "${PROMPT}")`);
      expect(verdict.message).toContain(`call 2 (POST /chat/completions, last user message "${PROMPT}")`);
    });
  });

  test.describe('a stall', () => {
    test.use({ modelFaults: {} });

    test('a stall after a few frames, ended by cancel: the turn ends cancelled with the text streamed so far; the next session gets the recording', async ({
      acp,
      httpModel,
      roots,
    }) => {
      // The emulator's first frames: the role, then three-character pieces of the answer.
      httpModel!.fault({ kind: 'stall', afterFrames: 4 });
      await acp.initialize();
      await acp.newSession();
      const turn = acp.promptInFlight(PROMPT);
      await acp.waitForUpdate('agent_message_chunk');
      await acp.cancel();
      const stalled = await turn;
      expect(stalled.stopReason).toBe('cancelled');
      expect(stalled.text.length).toBeGreaterThan(0);
      const full = answer.replace('<cwd>', roots.cwd);
      expect(full.startsWith(stalled.text)).toBe(true);
      expect(stalled.text.length).toBeLessThan(full.length);
      // The stall took the first call's place; the same request in a new session gets the recorded answer.
      await acp.newSession();
      const next = await acp.prompt(PROMPT);
      expect(next.stopReason).toBe('end_turn');
      expect(next.text).toBe(full);
      await acp.close();
      const { stdout } = await acpSnapshotTexts(acp);
      // The agent's wire: the first turn's chunks, its answer `cancelled`, then the second turn whole.
      const stops = [...stdout.matchAll(/"stopReason":"(\w+)"/g)].map((m) => m[1]);
      expect(stops).toEqual(['cancelled', 'end_turn']);
      const firstTurn = stdout.slice(0, stdout.indexOf('"stopReason":"cancelled"'));
      expect(firstTurn).toContain('"sessionUpdate":"agent_message_chunk"');
      expect(firstTurn).not.toContain('ready when you are');
      expect(httpModel!.calls).toBe(2);
    });
  });
});
