// The `conformance` project: every ACP v1 conformance check as one test, against the SDK 1.9 example
// agent and against our agent; every ACP v2 check against our agent (it answers v2 through the SDK's router),
// and the v2 suite on the SDK 1.9 example, which answers 1: v1-only. A check an agent fails for a known, legitimate reason is declared with
// test.fail and the reason (so it shows in the report and flips to an error if the agent ever passes).

import {
  type AgentTarget,
  ALL_CHECKS,
  ourAgentBuilt,
  ourAgentReplayTarget,
  ourAgentTarget,
  parseProfile,
  profileTarget,
  runCheck,
  runSuite,
  sdkExampleTarget,
  V2_CHECKS,
} from '@acp-snapshot/playwright/testing';
import { expect, test } from '@playwright/test';
import { profile as ourAgentProfile } from './targets/acp-snapshot-agent.js';

interface Suite {
  target: () => AgentTarget;
  /** check id -> why this agent fails it. */
  expectedFailures: Record<string, string>;
  /** Set when the suite cannot run at all (and why). */
  unavailable?: () => string | undefined;
}

const agentMissing = () =>
  ourAgentBuilt() ? undefined : 'agent/dist/main.js does not exist: run `npm run build` first';

const SUITES: Record<string, Suite> = {
  'sdk-1.9-example': {
    target: sdkExampleTarget,
    expectedFailures: {
      'initialize.agent-info':
        'the SDK 1.9 example answers initialize with protocolVersion and agentCapabilities only; it sends no agentInfo',
      'prompt.cancel-permission':
        'when its permission request is answered `cancelled`, the example returns from the turn without looking at its ' +
        'abort signal, so the prompt ends `end_turn` instead of `cancelled`',
    },
  },
  // Keyless: the replay overlay, with each check's model turns served by llm-replay from an override.
  'acp-snapshot-agent (replay)': {
    target: ourAgentReplayTarget,
    expectedFailures: {},
    unavailable: agentMissing,
  },
  // The live model path: the record overlay and the openai-compatible plugin against the local emulator.
  'acp-snapshot-agent (record, emulator)': {
    target: ourAgentTarget,
    expectedFailures: {},
    unavailable: agentMissing,
  },
  // The path a user's agent takes: an agent profile (e2e/conformance/targets/acp-snapshot-agent.ts) whose
  // env names {{modelBaseUrl}}, so each check's model turns are answered by the prompt-aware stand-in.
  'acp-snapshot-agent (profile, prompt-aware model stand-in)': {
    target: () => profileTarget(parseProfile(ourAgentProfile, 'targets/acp-snapshot-agent.ts')),
    expectedFailures: {},
    unavailable: agentMissing,
  },
};

for (const [name, suite] of Object.entries(SUITES)) {
  test.describe(name, () => {
    for (const check of ALL_CHECKS) {
      test(`${check.id}: ${check.title}`, async () => {
        const testInfo = test.info();
        const missing = suite.unavailable?.();
        test.skip(missing !== undefined, missing);
        const reason = suite.expectedFailures[check.id];
        test.fail(reason !== undefined, reason);
        test.setTimeout(120_000);
        const result = await runCheck(suite.target(), check);
        await testInfo.attach('transcript', { body: result.transcript, contentType: 'text/plain' });
        testInfo.annotations.push({ type: 'result', description: `${result.status}: ${result.detail}` });
        test.skip(result.status === 'skip', result.detail);
        expect(result.status, `${check.id} (${check.source}): ${result.detail}`).toBe('pass');
      });
    }
  });
}

// ACP v2 (`--protocol 2`): our agent through its profile and the prompt-aware stand-in, the path any agent takes.
test.describe('acp-snapshot-agent on ACP v2 (profile, prompt-aware model stand-in)', () => {
  for (const check of V2_CHECKS) {
    test(`${check.id}: ${check.title}`, async () => {
      const testInfo = test.info();
      const missing = agentMissing();
      test.skip(missing !== undefined, missing);
      test.setTimeout(120_000);
      const target = profileTarget(parseProfile(ourAgentProfile, 'targets/acp-snapshot-agent.ts'));
      const result = await runCheck(target, check);
      await testInfo.attach('transcript', { body: result.transcript, contentType: 'text/plain' });
      testInfo.annotations.push({ type: 'result', description: `${result.status}: ${result.detail}` });
      expect(result.v1Only, 'our agent answers ACP v2').toBeUndefined();
      test.skip(result.status === 'skip', result.detail);
      expect(result.status, `${check.id} (${check.source}): ${result.detail}`).toBe('pass');
    });
  }
});

test('the v2 suite on the SDK 1.9 example, which answers protocolVersion 1: v1-only, no check failing', async () => {
  const results = await runSuite(sdkExampleTarget(), V2_CHECKS);
  expect(results.map((r) => [r.id, r.status, r.v1Only])).toEqual(V2_CHECKS.map((c) => [c.id, 'skip', 1]));
  expect(results[0]!.detail).toBe('v1-only: asked for protocolVersion 2, the agent answered 1');
});
