/**
 * Killing the agent mid-turn for the catalog's killed-mid-turn case: a step runner that lets the
 * prompt run and, once the agent's bash tool has started its command inside the test's roots, sends
 * the agent process SIGKILL.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepRunner } from '../driver.js';
import { expect } from '../fixtures.js';
import { processesInside } from '../orphans.js';
import { scenarioKey } from '../roots.js';

/** The generated root of a scenario's current run (`/tmp/acp-snap-<key>-XXXXXX`), once it exists. */
export async function runRoot(name: string): Promise<string | undefined> {
  const prefix = `acp-snap-${scenarioKey(name)}-`;
  const found = (await readdir('/tmp')).filter((e) => e.startsWith(prefix));
  return found.length === 1 ? join('/tmp', found[0]!) : undefined;
}

/** The step runner of {@link killAgentWhenToolRuns} and what it saw. */
export interface AgentKiller {
  step: StepRunner;
  /** The run's generated root, once found. */
  readonly root: string | undefined;
  /** The agent process that got SIGKILL. */
  readonly killed: { pid: number; command: string } | undefined;
}

/**
 * Runs scenario `name`'s steps as usual; during its prompt, once a process running `toolCommand`
 * exists inside the run's root (within `withinMs`), SIGKILLs the agent process.
 */
export function killAgentWhenToolRuns(name: string, toolCommand: string, withinMs: number): AgentKiller {
  let root: string | undefined;
  let killed: AgentKiller['killed'];
  const step: StepRunner = async (title, body) => {
    if (!title.startsWith('session/prompt')) return body();
    const running = body();
    running.catch(() => {});
    await expect
      .poll(
        async () => {
          root ??= await runRoot(name);
          return root ? (await processesInside(root)).some((p) => p.command === toolCommand) : false;
        },
        { message: `the bash tool's \`${toolCommand}\` starts`, timeout: withinMs },
      )
      .toBe(true);
    const agent = (await processesInside(root!)).find((p) => p.command.includes('agent/dist/main.js'));
    expect(agent, 'the agent process runs in its session cwd').toBeDefined();
    killed = agent;
    process.kill(agent!.pid, 'SIGKILL');
    return running;
  };
  return {
    step,
    get root() {
      return root;
    },
    get killed() {
      return killed;
    },
  };
}
