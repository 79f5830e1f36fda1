// Copilot CLI facing a failing provider. Each fault takes the place of one model call and answers it in the
// OpenAI Chat Completions error shape, laid over the test's recording (`modelFaults`, the harness README's
// "Provider faults"). Both tests were recorded under the same faults against the stand-in, so each exchange log
// holds only the calls that reached the model; what Copilot does per fault is in examples/README.md.
import { expect, test } from '@acp-snapshot/playwright';

test.describe('rate limited', () => {
  // Copilot's retry waits the `retry-after` the provider sent (a millisecond keeps it fast).
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
    // The 429, then the same request again, served from the recording.
    expect(httpModel!.calls).toBe(2);
    await acp.close();
    await expect(acp).toMatchAcpSnapshot();
  });
});

test.describe('unauthorized once', () => {
  // Answered by the fault, in place of the first call only; the retry is served from the recording.
  test.use({ modelFaults: { 'key rejected once': { kind: 'status', status: 401, call: 1 } } });

  test('fault: a 401, retried by the agent, then the answer', async ({ acp, httpModel }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await acp.prompt('Name the three primary colours.');
    // Copilot sends the same request again after a 401 (qwen-code and OpenCode fail the turn): the user sees
    // the answer and nothing of the error.
    expect(turn.stopReason).toBe('end_turn');
    expect(turn.text).toContain('Red 🟥, yellow 🟨 and blue 🟦 (红、黄、蓝)');
    expect(httpModel!.calls).toBe(2);
    await acp.close();
    expect(acp.stdout.map((l) => l.text).join('\n')).not.toMatch(/\b401\b|Incorrect API key/);
    await expect(acp).toMatchAcpSnapshot();
  });
});
