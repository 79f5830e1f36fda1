import type {
  AgentContext,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import type { TerminalAccess, TerminalRun } from './tools/types.js';

/**
 * Commands run in the client's terminals (terminal/create, wait_for_exit, output, release), when the client
 * advertised `terminal: true`: the editor shows the command as it runs and owns its process, as Zed does.
 * A timeout or a cancel kills the terminal (terminal/kill) before its last output is read; the terminal is
 * always released, once the tool call has embedded it (`shown`).
 */
export function createTerminalAccess(client: AgentContext, sessionId: string): TerminalAccess {
  return {
    async run({ command, cwd, outputByteLimit, timeoutMs, signal, shown }): Promise<TerminalRun> {
      const { terminalId } = await client.request('terminal/create', {
        sessionId,
        command: '/bin/bash',
        args: ['-c', command],
        cwd,
        outputByteLimit,
      });
      const ids = { sessionId, terminalId };
      try {
        await shown(terminalId);
        let stopped: TerminalRun['stopped'];
        // The SDK's agent side leaves terminal results untyped: these are their schema types.
        const exited = client.request('terminal/wait_for_exit', ids) as Promise<WaitForTerminalExitResponse>;
        let timer: NodeJS.Timeout | undefined;
        const stop = new Promise<'timeout' | 'cancelled'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
          if (signal.aborted) resolve('cancelled');
          signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
        });
        const first = await Promise.race([exited, stop]);
        clearTimeout(timer);
        if (first === 'timeout' || first === 'cancelled') {
          stopped = first;
          await client.request('terminal/kill', ids);
        }
        const exit = await exited;
        const { output, truncated } = (await client.request(
          'terminal/output',
          ids,
        )) as TerminalOutputResponse;
        return {
          output,
          truncated,
          exitCode: exit.exitCode ?? null,
          signal: exit.signal ?? null,
          ...(stopped ? { stopped } : {}),
        };
      } finally {
        await client.request('terminal/release', ids).catch(() => {});
      }
    },
  };
}
