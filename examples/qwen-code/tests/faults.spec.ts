// qwen-code facing a failing provider. Each fault takes the place of one model call and answers it in the
// OpenAI Chat Completions error shape, laid over the test's recording (`modelFaults`, the harness README's
// "Provider faults"). The tests were recorded under the same faults against the stand-in, so each exchange log
// holds only the calls that reached the model; what qwen does per fault is in examples/README.md.
import { type AcpClient, expect, test } from '@acp-snapshot/playwright';

/** qwen's command list comes at a time that varies (tests/qwen.spec.ts): wait for it before closing. */
async function commandsListed(acp: AcpClient): Promise<void> {
  await expect
    .poll(() => acp.stdout.some((l) => l.text.includes('"sessionUpdate":"available_commands_update"')), {
      timeout: 30_000,
    })
    .toBe(true);
}

/** The turn's outcome: its stop reason, or the JSON-RPC error the agent answered with. */
function outcome(turn: Promise<{ stopReason: string }>): Promise<string> {
  return turn.then(
    (r) => r.stopReason,
    (e: Error) => e.message,
  );
}

test.describe('rate limited', () => {
  // The OpenAI SDK inside qwen honours `retry-after` (it waits its own back-off on 0: a millisecond keeps it fast).
  test.use({
    modelFaults: { 'first call rate-limited': { kind: 'status', status: 429, retryAfter: 0.001, call: 1 } },
  });

  test('fault: a 429 with retry-after, then the answer after the agent retries', async ({
    acp,
    httpModel,
  }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt('Name the three primary colours.');
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toContain('Red 🟥, yellow 🟨 and blue 🟦 (红、黄、蓝)');
    // The 429, then the same request again, served from the recording; the user sees no trace of the error.
    expect(httpModel!.calls).toBe(2);
    await commandsListed(acp);
    await acp.close();
    // (Its bundled skills' documentation, listed on stdout, may mention a 429 of its own; a random id may
    // hold the digits, as in 44056031-0b67-4294-..., so 429 counts as a number of its own.)
    expect(
      acp.stdout
        .map((l) => l.text)
        .filter((t) => !t.includes('"available_commands_update"'))
        .join('\n'),
    ).not.toMatch(/\b429\b/);
    await expect(acp).toMatchAcpSnapshot();
  });
});

test.describe('cut', () => {
  test.use({ modelFaults: { 'cut after four frames': { kind: 'cut', afterFrames: 4, call: 1 } } });

  test('fault: a stream cut mid-answer, resumed by the agent', async ({ acp, httpModel, roots }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt('Describe the water cycle.');
    // qwen does not fail the turn: it sends a new request holding the text it got ("Water evap") and asks the
    // model to resume from there, and streams the rest into the same message.
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toBe(
      `Water evaporates 🌊 from seas, condenses into clouds ☁️ (云) and falls as rain 🌧️ near ${roots.cwd}.`,
    );
    expect(httpModel!.calls).toBe(2);
    // The user tries again in a new session: the same request, the recorded answer whole.
    await acp.newSession();
    const again = await acp.prompt('Describe the water cycle.');
    expect(again.stopReason).toBe('end_turn');
    expect(again.text).toContain(`near ${roots.cwd}`);
    await commandsListed(acp);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});

test.describe('stall', () => {
  test.use({ modelFaults: { 'stall after three frames': { kind: 'stall', afterFrames: 3, call: 1 } } });

  test('fault: a stalled stream, ended by the user cancel', async ({ acp, httpModel }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = acp.promptInFlight('List the planets.');
    await acp.waitForUpdate('agent_message_chunk');
    await acp.cancel();
    const stalled = await turn;
    // The text streamed before the stall (the role frame, then six-character pieces), then `cancelled`.
    expect(stalled.stopReason).toBe('cancelled');
    expect(stalled.text).toBe('Mercur');
    // The stall took the first call's place; the same request in a new session gets the recorded answer.
    await acp.newSession();
    const next = await acp.prompt('List the planets.');
    expect(next.stopReason).toBe('end_turn');
    expect(next.text).toBe('Mercury, Venus, Earth 🌍, Mars, Jupiter, Saturn 🪐, Uranus, Neptune (海王星).');
    expect(httpModel!.calls).toBe(2);
    await commandsListed(acp);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});

test.describe('unauthorized', () => {
  // Answered by the fault: no exchange log, no key, no recording of a 401 needed.
  test.use({ modelFaults: { 'key revoked': { kind: 'status', status: 401 } } });

  test('fault: a 401, reported as the turn error and not retried', async ({ acp, httpModel }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await outcome(acp.prompt('Name the three primary colours.'));
    // qwen fails the prompt with JSON-RPC -32603, the provider's message in `data.details`.
    expect(turn).toContain('JSON-RPC error -32603: Internal error');
    expect(httpModel!.calls).toBe(1);
    await commandsListed(acp);
    await acp.close();
    expect(acp.stdout.map((l) => l.text).join('\n')).toContain(
      '"details":"401 Incorrect API key provided. You can find your API key in your account settings."',
    );
    await expect(acp).toMatchAcpSnapshot();
  });
});
