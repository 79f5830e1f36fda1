/**
 * A profile's command line as it runs. The agent starts in the test's temporary cwd, so a relative path in
 * the command (`node_modules/.bin/my-agent`, or the script after `node`) means the user's project: the
 * directory of the Playwright config. A path that is not there is an error naming it as written and the
 * project, before anything starts (the process would otherwise fail naming a path under the temporary cwd).
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';

/** An agent command names a file that is not in the project. */
export class AgentNotFoundError extends Error {
  override name = 'AgentNotFoundError';
}

/** Executables whose first argument is the program they run (a script path when it looks like one). */
const INTERPRETERS = /^(node|nodejs|bun|deno|tsx|python3?|ruby)(\.exe)?$/;
const SCRIPT = /\.([cm]?[jt]s|py|rb)$/;

/** Whether argument `i` of `command` is a path to the agent's program (the executable, or an interpreter's script). */
function isProgramPath(command: readonly string[], i: number): boolean {
  const a = command[i]!;
  if (i === 0) return a.includes('/');
  return (
    i === 1 &&
    INTERPRETERS.test(basename(command[0] ?? '')) &&
    !a.startsWith('-') &&
    (a.includes('/') || SCRIPT.test(a))
  );
}

/**
 * `command` with its relative paths made absolute against `projectDir`: the program's path always (it must
 * exist there), any other argument only when a file of that name exists there (an argument such as a model
 * id `org/model` stays as written). `correct` says where the command is written, for the error.
 */
export function resolveAgentCommand(
  command: readonly string[],
  projectDir: string,
  correct = 'correct the command in playwright.config.ts',
): string[] {
  return command.map((a, i) => {
    if (isAbsolute(a)) return a;
    const inProject = resolve(projectDir, a);
    if (isProgramPath(command, i)) {
      if (!existsSync(inProject))
        throw new AgentNotFoundError(
          `agent command: ${a} does not exist in the project ${projectDir} (a relative path in the agent's command ` +
            'starts at the directory of playwright.config.ts). Install the agent there (npm install --save-dev <its package>), ' +
            `or ${correct}.`,
        );
      return inProject;
    }
    return (i > 0 || a.includes('/')) && existsSync(inProject) ? inProject : a;
  });
}
