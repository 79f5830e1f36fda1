/**
 * A built-in profile's initialize check through the `acp` fixture, against a real agent that is not the one
 * the profile expects (the SDK's example agent): the test fails at `initialize`, saying what changed.
 */

import { test as fixtures } from '../fixtures.js';
import { expect } from '../matchers.js';
import { SDK_EXAMPLE_AGENT } from '../testing/sdk-example.js';
import { checkInitialize } from './builtin.js';

const expectsQwen = {
  name: 'qwenCode',
  pkg: '@qwen-code/qwen-code',
  proven: ['0.24.4'],
  initialize: { agentName: 'qwen-code', protocolVersion: 1 },
};

fixtures.use({
  agentProfile: {
    command: [process.execPath, SDK_EXAMPLE_AGENT],
    checkInitialize: (response) => checkInitialize(expectsQwen, response),
  },
});

fixtures(
  'an agent whose initialize answer is not the expected one fails at initialize, naming the change',
  async ({ acp }) => {
    await expect(acp.initialize()).rejects.toThrow(
      /agents\.qwenCode\(\): the agent's initialize answer no longer looks as the profile expects \(proven on @qwen-code\/qwen-code 0\.24\.4; this agent says version .*\): agentInfo\.name is .*, expected "qwen-code"/,
    );
    // The answer itself arrived and is on the wire as written.
    expect(acp.stdout.some((l) => l.text.includes('"protocolVersion"'))).toBe(true);
    await acp.close();
  },
);
