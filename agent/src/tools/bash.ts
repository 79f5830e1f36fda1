import { cutText } from '@acp-snapshot/core';
import * as z from 'zod';
import { jsonSchemaOf, looseString, parseArgs } from './args.js';
import { failure, textContent } from './outcome.js';
import { pathKind } from './paths.js';
import { previewOf } from './spill.js';
import type { TerminalAccess, ToolContext, ToolDefinition, ToolOutcome } from './types.js';

const MAX_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * The command's process group must not outlive the agent, however the agent dies: Node has no
 * PR_SET_PDEATHSIG, and a SIGKILL runs no exit handler. So the group carries a watchdog: fd 3 of the
 * shell is one end of a socket whose other end only the agent holds (Node opens its own fds
 * close-on-exec, so no other child inherits it). A background `read` on fd 3 returns only at end of
 * file, which the kernel delivers when the agent's end closes, i.e. when the agent is gone, and the
 * watchdog then kills its whole group. The command itself runs in a fresh bash exec'd in the group
 * leader's place, without fd 3 and without the watchdog in its job table, so its `$0`, `$!`, `wait`,
 * `jobs` and exit status are what a plain `bash -c COMMAND` gives. When the shell exits normally, the
 * group (watchdog included) is ended by `killGroup` below, as before.
 */
const WATCHDOG =
  '(read -r -u 3 _; kill -KILL 0) </dev/null >/dev/null 2>&1 & exec 3<&- && exec /bin/bash -c "$1"';

const Args = z.object({
  command: z.string().min(1).describe('Shell command line, run with /bin/bash -c in the working directory.'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe('Milliseconds before the command is killed (default: the agent setting tools.bashTimeoutMs).'),
});

/** Limits of bash. */
export interface BashOptions {
  /** Characters of output kept in memory; past it the command is stopped. */
  maxOutputChars?: number;
  /** Characters of the command shown in the title. */
  titleChars?: number;
}

/**
 * bash: runs a command in a fresh non-login shell (`/bin/bash -c`, no profile files) in the session cwd, with
 * exactly the scrubbed ctx.env. The shell leads its own process group, so a timeout, a cancel, or the shell's
 * own exit ends every process it started (background jobs included) and no pipe is left open.
 * stdout and stderr are interleaved as they arrive; over-budget output is spilled (see spill.ts).
 */
export function createBash(opts: BashOptions = {}): ToolDefinition {
  const maxOutputChars = opts.maxOutputChars ?? 20_000_000;
  const titleChars = opts.titleChars ?? 60;
  return {
    name: 'bash',
    description:
      'Run a shell command with /bin/bash -c in the working directory and return its combined stdout and stderr ' +
      'and its exit code. Each call is a fresh shell (no state is kept between calls); stdin is empty. ' +
      'Background processes are ended when the command exits. Long output is cut and saved to a file whose path ' +
      'is given, to read with read_file.',
    get parameters() {
      return jsonSchemaOf(Args);
    },
    kind: 'execute',
    permission: 'command',
    title: (args) => `Run: ${shorten(looseString(args, 'command') ?? '', titleChars)}`,
    locations: () => [],
    async run(raw, ctx) {
      const parsed = parseArgs('bash', Args, raw);
      if (!parsed.ok) return parsed.outcome;
      const { command, timeout_ms: timeoutMs = ctx.bashTimeoutMs } = parsed.value;
      if ((await pathKind(ctx.cwd)) !== 'directory') {
        return failure(`Error: the working directory ${ctx.cwd} does not exist, so the command cannot run.`);
      }
      if (ctx.signal.aborted) return failure('Cancelled: the command was not started.');
      if (ctx.terminal) return runInClientTerminal(ctx.terminal, command, timeoutMs, maxOutputChars, ctx);
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(ctx.env)) if (v !== undefined) env[k] = v;
      // Imported on first use: execa and its dependencies are a third of the agent's bundle, and a replayed
      // scenario that runs no command should not pay for loading them at start-up.
      const { execa } = await import('execa');
      const subprocess = execa('/bin/bash', ['-c', WATCHDOG, 'bash', command], {
        cwd: ctx.cwd,
        env,
        extendEnv: false,
        // fd 3 is the watchdog's lifeline to the agent (see WATCHDOG); nothing is ever written to it.
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        all: true,
        reject: false,
        detached: true,
        stripFinalNewline: false,
        maxBuffer: maxOutputChars,
      });
      let stopped: 'timeout' | 'cancelled' | undefined;
      const group = subprocess.pid;
      const killGroup = () => {
        if (group !== undefined) killProcessGroup(group);
      };
      if (group !== undefined) liveGroups.add(group);
      const timer = setTimeout(() => {
        stopped ??= 'timeout';
        killGroup();
      }, timeoutMs);
      const onAbort = () => {
        stopped ??= 'cancelled';
        killGroup();
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      // Leftover background jobs would hold the output pipes open and hang the call: end them with the shell.
      subprocess.once('exit', killGroup);
      const result = await subprocess;
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      if (group !== undefined) liveGroups.delete(group);

      const body = typeof result.all === 'string' ? result.all : '';
      const status = result.isMaxBuffer
        ? `[stopped: the output passed ${maxOutputChars} characters]`
        : statusLine(stopped, timeoutMs, result.exitCode, result.signal, result.shortMessage ?? '');
      const ok = stopped === undefined && !result.isMaxBuffer && result.exitCode === 0;
      const preview = await previewOf(body === '' ? '(no output)' : body, [status], ctx);
      return {
        status: ok ? 'completed' : 'failed',
        output: preview.output,
        content: [textContent(preview.output)],
        ...(preview.spill ? { spill: preview.spill } : {}),
      };
    },
  };
}

/** The status line after a command's output: how it ended. */
function statusLine(
  stopped: 'timeout' | 'cancelled' | undefined,
  timeoutMs: number,
  exitCode: number | null | undefined,
  signal: string | null | undefined,
  failure: string,
): string {
  if (stopped === 'timeout')
    return `[timed out after ${timeoutMs} ms: the command and its child processes were killed]`;
  if (stopped === 'cancelled') return '[cancelled: the command and its child processes were killed]';
  if (typeof exitCode === 'number') return `[exit code: ${exitCode}]`;
  if (signal) return `[killed by signal ${signal}]`;
  return `[the command could not run: ${failure}]`;
}

/**
 * The command in the client's terminal (the editor runs it and shows it): the terminal is embedded in the
 * tool call while it runs, and the result carries it beside the output the model sees.
 */
async function runInClientTerminal(
  terminal: TerminalAccess,
  command: string,
  timeoutMs: number,
  maxOutputChars: number,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  let terminalId = '';
  const run = await terminal.run({
    command,
    cwd: ctx.cwd,
    outputByteLimit: maxOutputChars,
    timeoutMs,
    signal: ctx.signal,
    shown: async (id) => {
      terminalId = id;
      await ctx.report?.([{ type: 'terminal', terminalId: id }]);
    },
  });
  const status = [
    ...(run.truncated ? [`[the terminal kept the last ${maxOutputChars} bytes of the output]`] : []),
    statusLine(run.stopped, timeoutMs, run.exitCode, run.signal, 'no exit status'),
  ];
  const preview = await previewOf(run.output === '' ? '(no output)' : run.output, status, ctx);
  return {
    status: run.stopped === undefined && run.exitCode === 0 ? 'completed' : 'failed',
    output: preview.output,
    content: [{ type: 'terminal', terminalId }, textContent(preview.output)],
    ...(preview.spill ? { spill: preview.spill } : {}),
  };
}

// execa's `cleanup` does not apply to detached subprocesses: end their groups ourselves if the agent exits.
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const group of liveGroups) killProcessGroup(group);
});

function killProcessGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * The first line of a command, cut to `max` characters with an ellipsis when anything was left out (an
 * emoji or other character at the cut is left out whole).
 */
function shorten(command: string, max: number): string {
  const first = command.split('\n', 1)[0] ?? '';
  const more = first.length < command.trimEnd().length;
  if (first.length > max) return `${cutText(first, max - 1)}…`;
  return more ? `${first} …` : first;
}
