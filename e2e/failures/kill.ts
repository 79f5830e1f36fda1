/**
 * Killing the agent mid-turn for the catalog's killed-mid-turn case: a step runner that lets the
 * prompt run and, once the agent's bash tool has started its command inside the test's roots, sends
 * the agent process SIGKILL.
 */
import { expect, processesInside, type RunDirs, type StepRunner } from '@acp-snapshot/playwright/testing';

/** The step runner of {@link killAgentWhenToolRuns} and what it saw. */
export interface AgentKiller {
  step: StepRunner;
  /** The run's generated root, once found. */
  readonly root: string | undefined;
  /** The agent process that got SIGKILL. */
  readonly killed: { pid: number; command: string } | undefined;
}

/**
 * Runs a scenario's steps as usual; during its prompt, once a process running `toolCommand` exists
 * inside the root of the run `dirs` tracked last (within `withinMs`), SIGKILLs the agent process.
 */
export function killAgentWhenToolRuns(dirs: RunDirs, toolCommand: string, withinMs: number): AgentKiller {
  let root: string | undefined;
  let killed: AgentKiller['killed'];
  const step: StepRunner = async (title, body) => {
    if (!title.startsWith('session/prompt')) return body();
    const running = body();
    running.catch(() => {});
    await expect
      .poll(
        async () => {
          root ??= dirs.latest?.root;
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
