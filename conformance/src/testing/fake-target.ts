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

/** The fake agent with one flaw switched on (or none): `node fake-agent.mjs`. */
export function fakeTarget(flaw?: string): AgentTarget {
  return {
    name: `fake-agent${flaw ? `[${flaw}]` : ''}`,
    command: process.execPath,
    args: [FAKE_AGENT],
    prepare: async ({ root, turns }) => ({
      env: { ...plainTargetEnv(root), FAKE_TURNS: turns.join(','), ...(flaw && { FAKE_FLAW: flaw }) },
      modelText: 'Hello from the fake agent.',
      dispose: async () => {},
    }),
  };
}
