// gemini-cli asked for ACP v2: it answers 1, and under 'highest' the run goes on in v1 on the same pipes (the
// report's `acp protocol` annotation says so). A test that demanded 2 would fail at initialize, naming both
// versions and how to run v1.
import { expect, test } from '@acp-snapshot/playwright';

test.use({ protocolVersion: 'highest' });

test('no model: gemini answers protocol 1 and the run continues on v1', async ({ acp }) => {
  const init = await acp.initialize();
  expect(init.protocolVersion).toBe(1);
  expect(acp.negotiation).toMatchObject({
    asked: 'highest',
    version: 1,
    agent: expect.stringMatching(/^gemini-cli /),
  });
  await acp.newSession();
  await acp.close();
  // One initialize on the wire, asking for 2; the v1 requests after it continue its ids.
  const sent = acp.sent.map((l) => JSON.parse(l.text) as { id?: number; method?: string });
  expect(sent[0]).toMatchObject({ id: 0, method: 'initialize', params: { protocolVersion: 2 } });
  expect(sent.filter((m) => m.method === 'initialize')).toHaveLength(1);
  expect(sent.find((m) => m.method === 'session/new')?.id).toBe(1);
  await expect(acp).toMatchAcpSnapshot();
});
