/**
 * The client's side of ACP's terminals, as an editor serves them to an agent that asks to run a command:
 * `terminal/create` starts a real process (in its own process group, in the session's cwd unless the
 * request names another, with the test's environment plus the request's variables), `terminal/output`
 * answers what it wrote so far (stdout and stderr as they arrived, within the request's `outputByteLimit`:
 * the oldest bytes go first, cut on a character boundary, and `truncated` says so), `terminal/wait_for_exit`
 * answers its real exit code or signal, `terminal/kill` kills its group and keeps the terminal,
 * `terminal/release` kills what still runs and forgets it. Each call is noted for the report.
 *
 * At the end of the test {@link ClientTerminals.dispose} kills and releases what the agent left: a
 * command still running then (one that never exits, stopped by the test's timeout) is named with its
 * command line, a terminal never released is named too.
 */
import { isAbsolute } from 'node:path';
import { spawnPiped } from '@acp-snapshot/conformance/process';
import * as acp from '@agentclientprotocol/sdk';

/** What a terminal keeps when the request names no `outputByteLimit` (an editor's scrollback, roughly). */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024;

/** One terminal the agent created. */
export interface ClientTerminal {
  id: string;
  /** The command line as the agent asked for it (command and arguments, joined by spaces). */
  commandLine: string;
  cwd: string;
  /** The exit, once the process has ended. */
  exitStatus?: acp.TerminalExitStatus;
  released: boolean;
}

export interface ClientTerminalsOptions {
  /** The environment every command starts with (the test's: the agent's scrubbed environment). */
  env: Record<string, string>;
  /** The cwd of a command whose request names none: the session's cwd. */
  cwdOf: (sessionId: string) => string;
  /** One line per request, for the report. */
  note: (line: string) => void;
}

/** A terminal the agent left at the end of the test: `running` when its command had not exited. */
export interface LeftTerminal {
  running: boolean;
  message: string;
}

interface Running extends ClientTerminal {
  output: Buffer;
  truncated: boolean;
  limit: number;
  ended: Promise<acp.TerminalExitStatus>;
  group: number | undefined;
}

/** The agent's terminals in one client: served on its app, ended at the end of the test. */
export class ClientTerminals {
  private readonly terminals = new Map<string, Running>();
  /** Every terminal created, in order (released ones too): what the report and the coverage show. */
  readonly created: ClientTerminal[] = [];
  private next = 1;

  constructor(private readonly opts: ClientTerminalsOptions) {}

  /** Registers the terminal/* handlers on `app`. */
  serve(app: acp.ClientApp): void {
    app
      .onRequest('terminal/create', ({ params }) => this.create(params))
      .onRequest('terminal/output', ({ params }) => {
        const t = this.get(params.terminalId, 'terminal/output');
        return {
          output: retainedText(t.output, t.exitStatus === undefined),
          truncated: t.truncated,
          ...(t.exitStatus ? { exitStatus: t.exitStatus } : {}),
        };
      })
      .onRequest('terminal/wait_for_exit', async ({ params }) => {
        const t = this.get(params.terminalId, 'terminal/wait_for_exit');
        return { ...(await t.ended) };
      })
      .onRequest('terminal/kill', async ({ params }) => {
        const t = this.get(params.terminalId, 'terminal/kill');
        await this.stop(t);
        return {};
      })
      .onRequest('terminal/release', async ({ params }) => {
        const t = this.get(params.terminalId, 'terminal/release');
        await this.stop(t);
        t.released = true;
        this.terminals.delete(t.id);
        return {};
      });
  }

  /**
   * Kills every terminal still running and releases every one the agent did not: returns one line per
   * terminal so left (a still running one names its command line), [] when the agent cleaned up.
   */
  async dispose(): Promise<LeftTerminal[]> {
    const left: LeftTerminal[] = [];
    for (const t of [...this.terminals.values()]) {
      const running = t.exitStatus === undefined;
      await this.stop(t);
      t.released = true;
      this.terminals.delete(t.id);
      left.push({
        running,
        message: running
          ? `terminal ${t.id} (\`${t.commandLine}\` in ${t.cwd}) was still running at the end of the test: the client killed it and released it`
          : `terminal ${t.id} (\`${t.commandLine}\`) was never released by the agent: the client released it at the end of the test`,
      });
    }
    return left;
  }

  /** The output a terminal kept so far (for views and tests), as terminal/output would answer it. */
  outputOf(id: string): { output: string; truncated: boolean } | undefined {
    const t = this.terminals.get(id) ?? (this.created.find((c) => c.id === id) as Running | undefined);
    return t && { output: retainedText(t.output, t.exitStatus === undefined), truncated: t.truncated };
  }

  private create(params: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    const args = params.args ?? [];
    const commandLine = [params.command, ...args].join(' ');
    this.opts.note(`terminal/create \`${commandLine}\``);
    if (params.cwd != null && !isAbsolute(params.cwd))
      throw acp.RequestError.invalidParams(
        { cwd: params.cwd },
        `cwd must be an absolute path: ${params.cwd}`,
      );
    if (params.outputByteLimit != null && params.outputByteLimit < 0)
      throw acp.RequestError.invalidParams(
        { outputByteLimit: params.outputByteLimit },
        'outputByteLimit must not be negative',
      );
    const cwd = params.cwd ?? this.opts.cwdOf(params.sessionId);
    const env = { ...this.opts.env };
    for (const v of params.env ?? []) env[v.name] = v.value;
    // A command with no arguments is a command line, as an editor's terminal reads it: run by the shell.
    const [file, argv] = args.length === 0 ? ['/bin/sh', ['-c', params.command]] : [params.command, args];
    const { child, ended } = spawnPiped(file, argv, { cwd, env });
    child.stdin.end();
    const id = `term-${this.next++}`;
    const t: Running = {
      id,
      commandLine,
      cwd,
      released: false,
      output: Buffer.alloc(0),
      truncated: false,
      limit: params.outputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT,
      group: child.pid,
      ended: ended.then((end) => {
        const status: acp.TerminalExitStatus = end.error
          ? // Not started (not found, not executable): what a shell answers for it, with the reason as output.
            { exitCode: end.error.code === 'ENOENT' ? 127 : 126, signal: null }
          : { exitCode: end.exitCode, signal: end.signal };
        if (end.error) append(t, Buffer.from(`${params.command}: ${end.error.message}\n`));
        t.exitStatus = status;
        return status;
      }),
    };
    // What the command left running in its group would hold the output open and outlive the test: it
    // ends with the command (the exit is the command's own).
    child.once('exit', () => killGroup(child.pid));
    const onData = (chunk: Buffer) => append(t, chunk);
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.terminals.set(id, t);
    this.created.push(t);
    return { terminalId: id };
  }

  /** Kills a terminal's process group (its command and what it started) and waits for its exit. */
  private async stop(t: Running): Promise<void> {
    if (t.exitStatus === undefined) killGroup(t.group);
    await t.ended;
  }

  private get(id: string, method: string): Running {
    this.opts.note(`${method} ${id}`);
    const t = this.terminals.get(id);
    if (t) return t;
    const released = this.created.some((c) => c.id === id);
    throw acp.RequestError.invalidParams(
      { terminalId: id },
      released
        ? `terminal ${id} was released: a released terminal cannot be used`
        : `no terminal ${id}: terminal/create answers the ids this client knows`,
    );
  }
}

function killGroup(group: number | undefined): void {
  if (group === undefined) return;
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // ESRCH: it ended meanwhile.
  }
}

/** Adds output to a terminal, dropping its oldest bytes past the limit. */
function append(t: Running, chunk: Buffer): void {
  const all = Buffer.concat([t.output, chunk]);
  if (all.length <= t.limit) {
    t.output = all;
    return;
  }
  t.truncated = true;
  t.output = all.subarray(startOfCharacter(all, all.length - t.limit));
}

/** The first index at or after `i` that starts a UTF-8 character (continuation bytes are 10xxxxxx). */
function startOfCharacter(bytes: Buffer, i: number): number {
  let at = i;
  while (at < bytes.length && (bytes[at]! & 0xc0) === 0x80) at++;
  return at;
}

/**
 * The kept bytes as text: a character still being written (its last bytes not yet arrived) is left for the
 * next answer, so the output is valid text at every point.
 */
export function retainedText(bytes: Buffer, running: boolean): string {
  if (!running) return bytes.toString('utf8');
  let end = bytes.length;
  // Back up over a trailing sequence that is not complete yet.
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (need > back) end = bytes.length - back;
    break;
  }
  return bytes.subarray(0, end).toString('utf8');
}
