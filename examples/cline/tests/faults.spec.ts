// Cline facing a failing provider. Each fault takes the place of one model call and answers it in the
// OpenAI Chat Completions error shape, laid over the test's recording (`modelFaults`, the harness README's
// "Provider faults"). The 429 test was recorded under the same fault against the stand-in, so its exchange log
// holds only the calls that reached the model; what Cline does per fault is in examples/README.md.
import { expect, test } from '@acp-snapshot/playwright';

/** The turn's outcome: its stop reason, or the JSON-RPC error the agent answered with. */
function outcome(turn: Promise<{ stopReason: string }>): Promise<string> {
  return turn.then(
    (r) => r.stopReason,
    (e: Error) => e.message,
  );
}

test.describe('rate limited', () => {
  // Cline's retry waits the `retry-after` the provider sent (a millisecond keeps it fast).
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

test.describe('unauthorized', () => {
  // Answered by the fault: no exchange log, no key, no recording of a 401 needed.
  test.use({ modelFaults: { 'key revoked': { kind: 'status', status: 401 } } });

  test('fault: a 401, reported to the user and not retried', async ({ acp, httpModel }) => {
    await acp.initialize();
    await acp.newSession();
    const turn = await outcome(acp.prompt('Name the three primary colours.'));
    // Cline fails the prompt with JSON-RPC -32603, the provider's message in it; one call, no retry.
    expect(turn).toContain('JSON-RPC error -32603');
    expect(httpModel!.calls).toBe(1);
    await acp.close();
    expect(acp.stdout.map((l) => l.text).join('\n')).toContain(
      '"message":"Internal error: Incorrect API key provided. You can find your API key in your account settings."',
    );
    await expect(acp).toMatchAcpSnapshot();
  });
});
