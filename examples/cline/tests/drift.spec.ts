// What a reviewer sees when the agent's requests drift from the recording: the replay refuses the call,
// the agent gets an error it cannot take for an answer, and the test names the part of the request that changed.
import { fileURLToPath } from 'node:url';
import { expect, test } from '@acp-snapshot/playwright';

const recorded = fileURLToPath(
  new URL('./__acp__/cline.spec.ts/cline/a-plain-answer/exchanges.jsonl', import.meta.url),
);

test.use({ model: { kind: 'http', exchanges: recorded } });

test('a changed prompt is refused, naming the part of the request that changed', async ({
  acp,
  httpModel,
}) => {
  await acp.initialize();
  await acp.newSession();
  // The recording asked about France; Cline fails the turn on the replay's refusal, or reports it as text.
  await acp.prompt('What is the capital of Spain? One sentence.').catch(() => undefined);
  await acp.close();
  const verdict = await httpModel!.verdict();
  expect(verdict.ok).toBe(false);
  // Cline's provider sends a user message's text as a string.
  expect(verdict.message).toMatch(/first differing at body\.messages\[\d+\]\.content\b/);
  expect(verdict.message).toMatch(/recorded: .*France/);
  expect(verdict.message).toMatch(/live: .*Spain/);
  // The recorded call went unused, and the message says how to accept the change.
  expect(verdict.message).toContain('was recorded but never requested');
  expect(verdict.message).toContain('re-record: npx playwright test --project=cline:record');
});
