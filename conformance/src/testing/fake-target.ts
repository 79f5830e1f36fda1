/** The deliberately broken fake agent that proves each check can fail, as a conformance target. */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentTarget } from '../runner.js';

/** The fake agent's script: `node fake-agent.mjs`, one flaw at a time by FAKE_FLAW. */
export const FAKE_AGENT = join(dirname(fileURLToPath(import.meta.url)), 'fake-agent.mjs');

/** PATH, LANG, TZ=UTC and a fresh HOME under the check's root: the env of a target that needs no model. */
export function plainTargetEnv(root: string): Record<string, string | undefined> {
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  return { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TZ: 'UTC' };
}

/** The v2 fake agent's script: `node fake-agent-v2.mjs`, one flaw at a time by FAKE_FLAW. */
export const FAKE_AGENT_V2 = join(dirname(fileURLToPath(import.meta.url)), 'fake-agent-v2.mjs');

/** The fake agent with one flaw switched on (or none): `node fake-agent.mjs` (v1) or `fake-agent-v2.mjs`. */
export function fakeTarget(flaw?: string, protocol: 1 | 2 = 1): AgentTarget {
  return {
    name: `fake-agent${protocol === 2 ? '-v2' : ''}${flaw ? `[${flaw}]` : ''}`,
    command: process.execPath,
    args: [protocol === 2 ? FAKE_AGENT_V2 : FAKE_AGENT],
    prepare: async ({ root, turns }) => ({
      env: { ...plainTargetEnv(root), FAKE_TURNS: turns.join(','), ...(flaw && { FAKE_FLAW: flaw }) },
      modelText: 'Hello from the fake agent.',
      dispose: async () => {},
    }),
  };
}
