// claude-agent-acp facing a failing provider. Each fault takes the place of one model call and answers it in the
// Anthropic Messages error shape, laid over the test's recording (`modelFaults`, the harness README's "Provider
// faults"). The tests were recorded under the same faults against the stand-in, so each exchange log holds only
// the calls that reached the model; what claude does per fault is in examples/README.md.
import { type AcpClient, agents, expect, test } from '@acp-snapshot/playwright';

/** claude's commands (twice on ACP v1, once on v2) and title (once) per session come at times that vary (tests/claude.spec.ts). */
async function sessionUpdatesIn(acp: AcpClient, sessions = 1): Promise<void> {
  const count = (kind: string) =>
    acp.stdout.filter((l) => l.text.includes(`"sessionUpdate":"${kind}"`)).length;
  await expect
    .poll(() => [count('available_commands_update'), count('session_info_update')], { timeout: 30_000 })
    .toEqual([(acp.negotiation?.version === 2 ? 1 : 2) * sessions, sessions]);
}

/**
 * The turn's own model call, not the title call claude makes beside it (whose last user message quotes the
 * prompt inside `<session>` and goes on): the last user message ends with the prompt.
 */
function turnCall(prompt: string): RegExp {
  return new RegExp(`${prompt.replace(/[.?]/g, '\\$&')}$`);
}

test.describe('rate limited', () => {
  // Claude Code waits `retry-after` (a millisecond here) before it retries.
  test.use({
    modelFaults: {
      'turn call rate-limited': {
        kind: 'status',
        status: 429,
        retryAfter: 0.001,
        lastUserMessage: turnCall('Name the three primary colours.'),
      },
    },
  });

  test('fault: a 429 with retry-after, then the answer after the agent retries', async ({
    acp,
    httpModel,
  }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt('Name the three primary colours.');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toMatch(/^Red 🟥, yellow 🟨 and blue 🟦 \(红、黄、蓝\), as of \d{4}-\d{2}-\d{2}\.$/);
    await sessionUpdatesIn(acp);
    // The 429, its retry (served from the recording) and the title call; the user sees no trace of the error.
    expect(httpModel!.calls).toBe(3);
    await acp.close();
    // (As a number of its own: a random session id may hold the digits.)
    expect(acp.stdout.map((l) => l.text).join('\n')).not.toMatch(/\b429\b/);
    await expect(acp).toMatchAcpSnapshot();
  });
});

test.describe('cut', () => {
  test.use({
    modelFaults: {
      // The headers, then the cut, before the first event. After text frames, whether claude shows the text it got
      // before the cut depends on how the socket's reads fall (seen both ways in CI); after message_start, whether
      // its output token counts in the turn's usage does.
      'cut before the first event': {
        kind: 'cut',
        afterFrames: 0,
        lastUserMessage: turnCall('Describe the water cycle.'),
      },
    },
  });

  test('fault: a stream cut mid-answer, retried whole by the agent', async ({ acp, httpModel, roots }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt('Describe the water cycle.');
    // Claude Code drops what the cut stream gave and sends the same request again: the user sees
    // the answer once, whole.
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toMatch(
      /^Water evaporates 🌊 from seas, condenses into clouds ☁️ \(云\), falls as rain 🌧️/,
    );
    expect(turn.text).toContain(`near ${roots.cwd}.`);
    expect(turn.text.match(/Water/g)).toHaveLength(1);
    await sessionUpdatesIn(acp);
    expect(httpModel!.calls).toBe(3);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});

test.describe('stall', () => {
  test.use({
    modelFaults: {
      'stall after six frames': {
        kind: 'stall',
        afterFrames: 6,
        lastUserMessage: turnCall('List the planets.'),
      },
    },
  });

  test('fault: a stalled stream, ended by the user cancel', async ({ acp, httpModel }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = acp.promptInFlight('List the planets.');
    await acp.waitForUpdate('agent_message_chunk');
    // The title call runs beside the turn, and its cost counts in the cancelled turn's only when it has finished:
    // cancel after the title is in, so the cost is the same every run.
    await acp.waitForUpdate('session_info_update');
    await acp.cancel();
    const stalled = await turn;
    // What the six frames held (message_start, content_block_start, then text deltas), then `cancelled`.
    expect(stalled.stopReason).toBe('cancelled');
    expect(stalled.text).toBe('Mercury, Venus');
    // The stall took the turn call's place; the same request in a new session gets the recorded answer.
    await acp.newSession();
    const next = await acp.prompt('List the planets.');
    expect(next.stopReason).toBe('end_turn');
    expect(next.text).toBe('Mercury, Venus, Earth 🌍, Mars, Jupiter, Saturn 🪐, Uranus, Neptune (海王星).');
    await sessionUpdatesIn(acp, 2);
    // The stall, the answer, and each session's title call.
    expect(httpModel!.calls).toBe(4);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});

test.describe('unauthorized', () => {
  test.use({
    // Claude Code retries a 401 too, with a back-off of its own (0.5 s, 1 s, 2 s, ... up to 10 times: minutes
    // for a key that stays revoked). CLAUDE_CODE_MAX_RETRIES=0 shows the user's error at the first 401.
    // The error message is claude's own, not the model's: its messageId is a random UUID (a model's message
    // carries the model's id, recorded).
    agentProfile: agents.claudeAgentAcp({
      env: { CLAUDE_CODE_MAX_RETRIES: '0' },
      normalize: {
        patterns: [
          {
            pattern: '"messageId":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"',
            placeholder: '"messageId":"{{uuid}}"',
          },
        ],
      },
    }),
    modelFaults: {
      'key revoked': {
        kind: 'status',
        status: 401,
        lastUserMessage: turnCall('Name the three primary colours.'),
      },
    },
  });

  test('fault: a 401, shown as a message and answered as an authentication error', async ({
    acp,
    httpModel,
    protocolVersion,
  }) => {
    test.skip(
      protocolVersion === 2,
      'on ACP v2 the failed turn ends on the idle state update with stopReason error, not a JSON-RPC error: tests/v2.spec.ts',
    );
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt('Name the three primary colours.').then(
      (r) => r.stopReason,
      (e: Error) => e.message,
    );
    expect(turn).toContain('JSON-RPC error -32000: Authentication required');
    await sessionUpdatesIn(acp);
    // The 401 (not retried) and the title call.
    expect(httpModel!.calls).toBe(2);
    await acp.close();
    expect(acp.stdout.map((l) => l.text).join('\n')).toContain(
      '"text":"Invalid API key · Fix external API key"',
    );
    await expect(acp).toMatchAcpSnapshot();
  });
});
