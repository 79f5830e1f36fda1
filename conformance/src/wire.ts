/**
 * A raw NDJSON JSON-RPC client over an agent's stdio, for protocol-level checks: it can send anything
 * (malformed lines, unknown methods, bad params), keeps every stdout line exactly as written, and lets a
 * check wait for a condition with a deadline instead of sleeping.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { type ChildEnd, spawnPiped } from './piped-child.js';

/** A JSON-RPC id as ACP allows it. */
export type RpcId = number | string | null;

/** One message (or unparseable line) the agent wrote to stdout, in arrival order. */
export interface Inbound {
  /** 1-based line number on stdout. */
  line: number;
  /** The line exactly as written (without its newline). */
  raw: string;
  /** The parsed value, when the line is valid UTF-8 JSON. */
  msg?: Record<string, unknown>;
  /** Why the line is not a JSON object (invalid UTF-8, not JSON, not an object). */
  problem?: string;
}

/** One message the client wrote to the agent's stdin. */
export interface Outbound {
  raw: string;
  msg?: Record<string, unknown>;
}

/** How the client answers `session/request_permission`: first allow / reject option, hold unanswered, or `cancelled`. */
export type PermissionPolicy = 'allow' | 'reject' | 'hold' | 'cancelled';

/** An agent request the client has not answered yet (held permission requests). */
export interface HeldRequest {
  id: RpcId;
  method: string;
  params: Record<string, unknown>;
}

/** How the agent process ended. */
export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** True when the client had to kill it. */
  killed: boolean;
}

/** The client capabilities the kit can offer: file reads and writes (never a terminal). */
export interface KitClientCapabilities {
  fs: { readTextFile: boolean; writeTextFile: boolean };
  terminal: false;
}

/** Client capabilities that advertise nothing: no fs, no terminal (the kit's default). */
export const NO_CAPABILITIES: KitClientCapabilities = {
  fs: { readTextFile: false, writeTextFile: false },
  terminal: false,
};

/**
 * How the agent is asked to exit at the end of a check: `stdin` closes stdin and waits; `signal` closes stdin
 * and sends SIGTERM to its process group at once (a profile's `exit`). Either way it is killed after the deadline.
 */
export type ExitPolicy = 'stdin' | 'signal';

/** Options to spawn an agent. */
export interface SpawnOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  /** What initialize advertises; the connection serves the fs methods advertised (default none). */
  clientCapabilities?: KitClientCapabilities;
  /** How the checks' final shutdown asks the agent to exit (default `stdin`). */
  exitPolicy?: ExitPolicy;
}

/** A wait that did not see its condition before the deadline (or the agent exited first). */
export class WaitError extends Error {
  override name = 'WaitError';
}

type Waiter = () => void;

/** The agent's spawned process with a raw JSON-RPC view of its stdio. */
export class AgentConnection {
  /** Everything the agent wrote to stdout, line by line. */
  readonly inbound: Inbound[] = [];
  /** Everything the client wrote, in order. */
  readonly outbound: Outbound[] = [];
  /** Agent requests for `fs/*` or `terminal/*` (answered with an error; recorded for capability checks). */
  readonly capabilityCalls: HeldRequest[] = [];
  /** Permission requests held under the `hold` policy, not answered yet. */
  readonly heldPermissions: HeldRequest[] = [];
  /** The policy for permission requests (mutable between steps). */
  permissionPolicy: PermissionPolicy = 'allow';
  private stderrText = '';
  private nextId = 1;
  private exitInfo: ExitInfo | undefined;
  private readonly waiters = new Set<Waiter>();
  private readonly exited: Promise<ExitInfo>;
  private pending = Buffer.alloc(0);
  private stdinClosed = false;
  private killedByClient = false;

  /** Why the process never started (command not found...), when it did not. */
  spawnError: string | undefined;

  private constructor(
    readonly label: string,
    command: string,
    private readonly proc: ChildProcessWithoutNullStreams,
    ended: Promise<ChildEnd>,
    /** What this client advertises in initialize (and serves). */
    readonly clientCapabilities: KitClientCapabilities = NO_CAPABILITIES,
    /** How the checks' final shutdown asks the agent to exit. */
    readonly exitPolicy: ExitPolicy = 'stdin',
  ) {
    proc.stdout!.on('data', (chunk: Buffer) => this.onStdout(chunk));
    proc.stderr!.on('data', (chunk: Buffer) => {
      this.stderrText += chunk.toString('utf8');
    });
    // A write after the agent exited must not crash the runner; the exit is reported by the checks.
    proc.stdin!.on('error', () => {});
    this.exited = ended.then((r) => {
      // A spawn failure (command not found) resolves too; keep its message for the report.
      if (r.error) {
        this.spawnError =
          r.error.code === 'ENOENT'
            ? `agent command not found: ${command}`
            : `the agent could not be started: ${r.error.message}`;
      }
      return this.onExit(r.exitCode, r.signal, this.killedByClient);
    });
  }

  /** Spawns `command args` with exactly `env` (nothing inherited) and pipes on all three streams. */
  static spawn(
    command: string,
    args: readonly string[],
    opts: SpawnOptions,
    label = command,
  ): AgentConnection {
    const { child, ended } = spawnPiped(command, args, { env: opts.env, cwd: opts.cwd });
    return new AgentConnection(label, command, child, ended, opts.clientCapabilities, opts.exitPolicy);
  }

  /** The agent's process id (undefined when it never started). */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** The agent's stderr so far. */
  get stderr(): string {
    return this.stderrText;
  }

  /** Set once the process has exited. */
  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** Parsed inbound messages only. */
  get messages(): Record<string, unknown>[] {
    return this.inbound.flatMap((i) => (i.msg ? [i.msg] : []));
  }

  private onStdout(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      const nl = this.pending.indexOf(0x0a);
      if (nl < 0) break;
      const bytes = this.pending.subarray(0, nl);
      this.pending = this.pending.subarray(nl + 1);
      this.onLine(bytes);
    }
  }

  private onLine(bytes: Buffer): void {
    const entry: Inbound = { line: this.inbound.length + 1, raw: bytes.toString('utf8') };
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      const value: unknown = JSON.parse(text);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        entry.msg = value as Record<string, unknown>;
      } else {
        entry.problem = 'the line is JSON but not a JSON-RPC message object';
      }
    } catch (e) {
      entry.problem =
        e instanceof TypeError
          ? 'the line is not valid UTF-8'
          : `the line is not JSON (${(e as Error).message})`;
    }
    this.inbound.push(entry);
    if (entry.msg) this.autoAnswer(entry.msg);
    this.wake();
  }

  /** Answers agent requests the checks do not drive themselves: permission (by policy), fs/terminal, others. */
  private autoAnswer(msg: Record<string, unknown>): void {
    if (typeof msg.method !== 'string' || !('id' in msg)) return;
    const request: HeldRequest = {
      id: msg.id as RpcId,
      method: msg.method,
      params: (msg.params ?? {}) as Record<string, unknown>,
    };
    if (msg.method === 'session/request_permission') {
      if (this.permissionPolicy === 'hold') {
        this.heldPermissions.push(request);
        return;
      }
      this.answerPermission(request, this.permissionPolicy);
      return;
    }
    if (msg.method.startsWith('fs/') || msg.method.startsWith('terminal/'))
      this.capabilityCalls.push(request);
    const fs = this.clientCapabilities.fs;
    if (
      (msg.method === 'fs/read_text_file' && fs.readTextFile) ||
      (msg.method === 'fs/write_text_file' && fs.writeTextFile)
    ) {
      this.serveFs(request);
      return;
    }
    this.send({
      jsonrpc: '2.0',
      id: request.id,
      error: {
        code: -32601,
        message: `Method not found: the conformance client does not offer ${msg.method}`,
      },
    });
  }

  /** Serves an advertised fs request on the real file system, with ACP's error codes. */
  private serveFs(request: HeldRequest): void {
    const path = request.params.path;
    if (typeof path !== 'string' || !isAbsolute(path)) {
      this.send({
        jsonrpc: '2.0',
        id: request.id,
        error: {
          code: -32602,
          message: `Invalid params: path must be absolute, got ${JSON.stringify(path)}`,
        },
      });
      return;
    }
    try {
      if (request.method === 'fs/read_text_file') {
        const content = readFileSync(path, 'utf8');
        this.send({ jsonrpc: '2.0', id: request.id, result: { content } });
      } else {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, String(request.params.content ?? ''));
        this.send({ jsonrpc: '2.0', id: request.id, result: {} });
      }
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const error =
        err.code === 'ENOENT'
          ? { code: -32002, message: `Resource not found: ${path}`, data: { uri: path } }
          : { code: -32603, message: `Internal error: ${err.message}` };
      this.send({ jsonrpc: '2.0', id: request.id, error });
    }
  }

  /** Answers a permission request: the first allow (or reject) option, or the `cancelled` outcome. */
  answerPermission(request: HeldRequest, choice: 'allow' | 'reject' | 'cancelled'): void {
    const options = Array.isArray(request.params.options)
      ? (request.params.options as { optionId?: unknown; kind?: unknown }[])
      : [];
    const prefix = choice === 'allow' ? 'allow' : 'reject';
    const option = options.find((o) => typeof o.kind === 'string' && o.kind.startsWith(prefix)) ?? options[0];
    const outcome =
      choice === 'cancelled' || option === undefined
        ? { outcome: 'cancelled' }
        : { outcome: 'selected', optionId: option.optionId };
    this.send({ jsonrpc: '2.0', id: request.id, result: { outcome } });
  }

  /** Answers every held permission request with `cancelled` (what a client MUST do when it cancels). */
  settleHeldPermissions(): number {
    const held = this.heldPermissions.splice(0);
    for (const r of held) this.answerPermission(r, 'cancelled');
    return held.length;
  }

  /** Writes one value as a JSON line, or a raw string as-is plus a newline. */
  send(value: Record<string, unknown> | string): void {
    const raw = typeof value === 'string' ? value : JSON.stringify(value);
    this.outbound.push(typeof value === 'string' ? { raw } : { raw, msg: value });
    if (this.stdinClosed || this.exitInfo) return;
    this.proc.stdin!.write(`${raw}\n`);
  }

  /** Sends a request (fresh integer id unless given) and returns its id; use {@link response} to wait. */
  sendRequest(method: string, params?: unknown, id?: RpcId): RpcId {
    const rid = id === undefined ? this.nextId++ : id;
    this.send({ jsonrpc: '2.0', id: rid, method, ...(params !== undefined && { params }) });
    return rid;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, ...(params !== undefined && { params }) });
  }

  /** Sends a request and waits for the response carrying exactly its id. */
  async request(
    method: string,
    params: unknown,
    timeoutMs: number,
    id?: RpcId,
  ): Promise<Record<string, unknown>> {
    const rid = this.sendRequest(method, params, id);
    return this.response(rid, `the response to ${method} (id ${JSON.stringify(rid)})`, timeoutMs);
  }

  /** Waits for the response whose id equals `id` (same type and value). */
  response(id: RpcId, what: string, timeoutMs: number): Promise<Record<string, unknown>> {
    return this.waitFor((m) => isResponse(m) && m.id === id, what, timeoutMs);
  }

  /** Resolves with the first inbound message (from index `from`) matching `pred`. */
  waitFor(
    pred: (m: Record<string, unknown>) => boolean,
    what: string,
    timeoutMs: number,
    from = 0,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check: Waiter = () => {
        for (let i = from; i < this.inbound.length; i++) {
          const m = this.inbound[i]!.msg;
          if (m && pred(m)) {
            done();
            resolve(m);
            return;
          }
        }
        if (this.exitInfo) {
          done();
          if (this.spawnError) {
            reject(new WaitError(`${this.spawnError} (waiting for ${what})`));
            return;
          }
          const tail = this.stderrText.trim().split('\n').slice(-3).join(' | ');
          reject(
            new WaitError(
              `the agent exited (${describeExit(this.exitInfo)}) before ${what} arrived${tail ? `; stderr: ${tail.slice(-300)}` : ''}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new WaitError(`${what} did not arrive within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /**
   * Resolves once the agent has written nothing to stdout for `quietMs` (or has exited, or `maxMs` has
   * passed): the settle wait for notifications an agent sends after its last response.
   */
  waitQuiet(quietMs: number, maxMs: number): Promise<void> {
    if (quietMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(quiet);
        clearTimeout(cap);
        this.waiters.delete(onLine);
        resolve();
      };
      const arm = () => {
        clearTimeout(quiet);
        quiet = setTimeout(done, quietMs);
      };
      const onLine: Waiter = () => (this.exitInfo ? done() : arm());
      const cap = setTimeout(done, Math.max(quietMs, maxMs));
      this.waiters.add(onLine);
      onLine();
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  private onExit(code: number | null, signal: string | null, killed: boolean): ExitInfo {
    // Keep a last line that had no newline: it was still written to stdout.
    if (this.pending.length > 0) {
      const rest = this.pending;
      this.pending = Buffer.alloc(0);
      this.onLine(rest);
    }
    this.exitInfo = { code, signal, killed };
    this.wake();
    return this.exitInfo;
  }

  /** Closes the agent's stdin (end of the connection from the client's side). */
  closeStdin(): void {
    if (this.stdinClosed) return;
    this.stdinClosed = true;
    this.proc.stdin!.end();
  }

  /**
   * Closes stdin and waits up to `timeoutMs` for the agent to exit on its own; kills its process group
   * otherwise. Returns whether it exited by itself.
   */
  async shutdown(
    timeoutMs: number,
    policy: ExitPolicy = 'stdin',
  ): Promise<{ exitedOnItsOwn: boolean; exit: ExitInfo }> {
    this.closeStdin();
    if (policy === 'signal') this.signalGroup('SIGTERM');
    const timedOut = Symbol('timeout');
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([
      this.exited,
      new Promise<typeof timedOut>((r) => {
        timer = setTimeout(() => r(timedOut), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (first !== timedOut) return { exitedOnItsOwn: true, exit: first };
    this.kill();
    const exit = await this.exited;
    return { exitedOnItsOwn: false, exit };
  }

  /** Kills the agent's whole process group (no orphans). */
  kill(): void {
    if (this.exitInfo) return;
    this.killedByClient = true;
    if (!this.signalGroup('SIGKILL')) this.proc.kill('SIGKILL');
  }

  /** Sends `signal` to the agent's process group; false when the group is gone. */
  private signalGroup(signal: NodeJS.Signals): boolean {
    const pid = this.proc.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Once the agent's main process has exited: kills what is left of its process group (a child it started
   * that outlived it) and waits until the group is empty or `timeoutMs` has passed. Returns whether it is empty.
   */
  async reapGroup(timeoutMs: number): Promise<boolean> {
    await this.exited;
    const deadline = Date.now() + timeoutMs;
    while (this.signalGroup('SIGKILL')) {
      if (Date.now() > deadline) return false;
      // A killed process leaves the group once it is reaped (by init, for an orphan): a condition to poll.
      await new Promise((r) => setTimeout(r, 10));
    }
    return true;
  }

  /** A readable transcript: `>` lines the client sent, `<` lines the agent wrote, then stderr. */
  transcript(): string {
    const out = this.outbound.map((o) => `> ${o.raw}`);
    const inn = this.inbound.map((i) => `< ${i.raw}${i.problem ? `   [${i.problem}]` : ''}`);
    return [
      `# ${this.label}`,
      '## client -> agent',
      ...out,
      '## agent -> client (stdout)',
      ...inn,
      '## stderr',
      this.stderrText,
      `## exit: ${this.spawnError ?? (this.exitInfo ? describeExit(this.exitInfo) : 'still running')}`,
    ].join('\n');
  }
}

/** True for a JSON-RPC response (an id, no method). */
export function isResponse(m: Record<string, unknown>): boolean {
  return 'id' in m && !('method' in m);
}

/** True for a notification from the agent with the given method. */
export function isNotification(m: Record<string, unknown>, method?: string): boolean {
  return typeof m.method === 'string' && !('id' in m) && (method === undefined || m.method === method);
}

/** True for a request from the agent with the given method. */
export function isAgentRequest(m: Record<string, unknown>, method?: string): boolean {
  return typeof m.method === 'string' && 'id' in m && (method === undefined || m.method === method);
}

/** `exit code 0`, `signal SIGKILL (killed by the client)`. */
export function describeExit(e: ExitInfo): string {
  const how = e.signal ? `signal ${e.signal}` : `exit code ${e.code}`;
  return e.killed ? `${how}, killed by the client` : how;
}
