/**
 * The model side over HTTP, through the package's fixtures as a user of another agent would use them, on
 * our agent (its OpenAI-compatible plugin, pointed at `{{modelBaseUrl}}` by its profile): a turn recorded
 * through the model-http server against the bundled emulator, then replayed keylessly with the emulator
 * gone, giving the same normalized stdout — the cross-check of the HTTP path against what the agent printed
 * live. A prompt the recording never saw is answered with an error the agent reports, not a model answer.
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, startEmulator } from '@acp-snapshot/emulator';
import { acpSnapshotTexts, expect, test } from '@acp-snapshot/playwright';
import { HELLO_SCRIPT, OUR_AGENT_OVER_HTTP } from './our-agent-over-http.js';

const ours = OUR_AGENT_OVER_HTTP;

const dir = await mkdtemp(join(tmpdir(), 'acp-http-model-'));
const exchanges = join(dir, 'scenarios', 'hello-http', 'exchanges.jsonl');
const UPSTREAM = 'ACP_HTTP_MODEL_TEST_UPSTREAM';
const ELSEWHERE = 'ACP_HTTP_MODEL_TEST_ELSEWHERE';
let emulator: Emulator | undefined;
let liveStdout = '';

test.describe.configure({ mode: 'serial' });
test.afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

test.describe('recorded', () => {
  test.beforeAll(async () => {
    // Like a real model: it quotes the absolute cwd from the system prompt, and streams emoji and CJK split.
    emulator = await startEmulator({ script: HELLO_SCRIPT });
    process.env[UPSTREAM] = emulator.url;
  });
  test.use({
    agentProfile: ours,
    model: { kind: 'http', record: 'all', exchanges, upstream: { baseUrlEnv: UPSTREAM } },
  });

  test('a turn recorded through the HTTP model server', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    expect((await acp.prompt('Say hello and tell me where you are working.')).stopReason).toBe('end_turn');
    await acp.close();
    liveStdout = (await acpSnapshotTexts(acp)).stdout;
    // The cwd streamed in pieces: slice placeholders ({{cwd[0:2]}}...), never this run's path.
    expect(liveStdout).toContain('{{cwd[0:');
    expect(liveStdout).not.toContain(dir);
    expect(emulator?.requests.length).toBe(1);
  });
});

test.describe('replayed', () => {
  test.use({ agentProfile: ours, model: { kind: 'http', exchanges } });
  test.beforeAll(async () => {
    // Keyless and offline: the upstream is gone.
    await emulator?.close();
    emulator = undefined;
    delete process.env[UPSTREAM];
  });

  test('the exchange log is canonical and scrubbed: roots as placeholders, no port, no key', async () => {
    const text = readFileSync(exchanges, 'utf8');
    expect(text.split('\n')[0]).toBe('{"format":"acp-snapshot/model-exchanges","version":1}');
    expect(text).toContain('{{cwd}}');
    expect(text).not.toContain(dir);
    expect(text).not.toContain('local-no-key');
  });

  test('replayed keylessly, the agent prints what it printed live', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    expect((await acp.prompt('Say hello and tell me where you are working.')).stopReason).toBe('end_turn');
    await acp.close();
    const { stdout } = await acpSnapshotTexts(acp);
    expect(liveStdout, 'the recording ran first').not.toBe('');
    expect(stdout).toBe(liveStdout);
  });

  test('a prompt the recording never saw is refused: the agent reports an error, the verdict names the request', async ({
    acp,
    httpModel,
  }) => {
    await acp.initialize();
    await acp.newSession();
    await acp.prompt('Say goodbye instead.').catch(() => undefined);
    await acp.close();
    const verdict = await httpModel!.verdict();
    expect(verdict.ok).toBe(false);
    // The live request against the nearest recorded one, at the first differing part, and the unused recording.
    expect(verdict.message).toContain('Say goodbye instead.');
    expect(verdict.message).toContain('Say hello and tell me where you are working.');
    expect(verdict.message).toMatch(/unused|never requested|not requested/i);
  });
});

test.describe('an agent that talks to a model the harness does not see', () => {
  let direct: Emulator | undefined;
  test.beforeAll(async () => {
    direct = await startEmulator({
      script: { responses: [{ reply: { text: 'an answer from elsewhere' } }] },
    });
    process.env[ELSEWHERE] = direct.url;
  });
  test.afterAll(async () => {
    await direct?.close();
  });
  // Its profile names the model's URL itself instead of {{modelBaseUrl}}: the turn is answered, the server
  // sees nothing, and a recording of it would replay only while that model runs.
  test.use({
    agentProfile: {
      ...ours,
      env: { ACP_SNAPSHOT_BASE_URL: 'set in the test', DEEPSEEK_API_KEY: 'local-no-key' },
    },
    // A listening upstream (checked before the agent starts), never reached through the server: nothing comes
    // through it to forward.
    model: {
      kind: 'http',
      record: 'all',
      exchanges: join(dir, 'scenarios', 'elsewhere', 'exchanges.jsonl'),
      upstream: { baseUrlEnv: ELSEWHERE },
    },
  });

  test('fails the test when it ends: prompts were answered and no model request came through the server', async ({
    acp,
    agent,
    httpModel,
  }) => {
    // The teardown of the acp fixture fails it; everything in the body holds.
    test.fail();
    // The emulator's port is known only now; the process starts at the first request, with this env.
    agent.env.ACP_SNAPSHOT_BASE_URL = direct!.url;
    await acp.initialize();
    await acp.newSession();
    expect((await acp.prompt('Say hello.')).text).toContain('an answer from elsewhere');
    await acp.close();
    expect(direct!.requests.length).toBe(1);
    expect(httpModel!.calls).toBe(0);
  });
});
