/**
 * The stdio ACP driver: runs any ACP agent command as a child process and drives a scenario's
 * script through the ACP SDK client. It speaks only command line, environment and stdio, and keeps
 * the agent's stdout lines exactly as written (the bytes are tapped before the SDK parses them).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { clipText, nestsDeeperThan } from '@acp-snapshot/session-log';
import * as acp from '@agentclientprotocol/sdk';
import { execa, type ResultPromise } from 'execa';
import { MAX_NORMALIZE_DEPTH } from './normalize.js';
import type { PermissionAnswer, Scenario, Step } from './scenario.js';

/** Wraps one exchange for reporting (Playwright's `test.step` in specs). */
export type StepRunner = <T>(title: string, body: () => Promise<T>) => Promise<T>;

/** The longest stdout line read (the SDK's own default message limit). */
const MAX_LINE_BYTES = 32 * 2 ** 20;

/** Longest stderr line quoted in a failure message. */
const STDERR_LINE_CHARS = 2000;

/** Driver failures caused by what the agent wrote to stdout (they name the line). */
const STDOUT_VIOLATION = /non-JSON line to stdout|stdout line nested deeper|stdout line over/;

/** One line the agent wrote to stdout, and which agent process (0-based) wrote it. */
export interface StdoutLine {
  text: string;
  process: number;
}

/** Everything observed while driving a scenario. */
export interface DriverResult {
  /** Raw stdout lines of every agent process, in order, exactly as written. */
  stdout: StdoutLine[];
  /** Full stderr text of each agent process. */
  stderr: string[];
  /** The session id returned by session/new. */
  sessionId?: string;
  /** The agent's name and version from its initialize result (`agentInfo`), when it gave them. */
  agentInfo?: { name: string; version: string };
  /** Exit code (or signal name) of each process. */
  exits: Array<number | string | null>;
  /** Wall time from spawn to exit of each process, in ms. */
  processMs: number[];
  /** Scenario expectations that did not hold (wrong stop reason, missing error...); empty when all held. */
  problems: string[];
}

/** The driver could not run the scenario to its end; `result` holds what was observed so far. */
export class DriverError extends Error {
  override name = 'DriverError';
  /** The agent's persisted log as it was on disk after the failure (raw text; set by the run that harvested it). */
  rawLog?: string;
  constructor(
    message: string,
    readonly result: DriverResult,
  ) {
    super(message);
  }
}

/** Options for {@link runScenario}. */
export interface DriverOptions {
  /** The agent command line: executable then arguments. */
  command: readonly string[];
  /** The complete environment of the agent (already scrubbed: nothing is inherited). */
  env: Record<string, string>;
  /** The agent process's working directory. */
  processCwd: string;
  /** The cwd sent in session/new and session/load. */
  sessionCwd: string;
  /** fs/* requests are served only for paths inside this directory. */
  fsRoot: string;
  scenario: Scenario;
  /** Scenario name, for messages. */
  name: string;
  step?: StepRunner;
  /** How long a process may take to exit after stdin is closed before its group is killed. */
  exitGraceMs?: number;
}

const directStep: StepRunner = (_title, body) => body();

function describeStep(step: Step, index: number): string {
  switch (step.op) {
    case 'initialize':
      return 'initialize';
    case 'new_session':
      return 'session/new';
    case 'load_session':
      return 'session/load';
    case 'restart':
      return 'restart agent process';
    case 'prompt': {
      const text = step.text.length > 50 ? `${step.text.slice(0, 47)}...` : step.text;
      return `session/prompt ${JSON.stringify(text)}${step.cancel ? ` (cancel ${JSON.stringify(step.cancel)})` : ''}`;
    }
    default:
      return `step ${index}`;
  }
}

/** Picks the option answering a permission request, by the option kinds ACP defines. */
export function chooseOption(
  answer: PermissionAnswer,
  options: ReadonlyArray<acp.PermissionOption>,
): string | undefined {
  const kinds = answer === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of kinds) {
    const found = options.find((o) => o.kind === kind);
    if (found) return found.optionId;
  }
  return undefined;
}

interface PromptWatch {
  stepIndex: number;
  step: Extract<Step, { op: 'prompt' }>;
  updates: number;
  cancelled: boolean;
}

/** One running agent process with its ACP client connection. */
class AgentProcess {
  readonly lines: StdoutLine[];
  stderr = '';
  readonly started = Date.now();
  exitedAt = 0;
  exit: number | string | null = null;
  readonly exited: Promise<void>;
  private readonly child: ResultPromise;
  connection!: acp.ClientConnection;
  /** Rejects when the process breaks the protocol (non-JSON stdout) or dies. */
  readonly broken: Promise<never>;
  private breakWith!: (e: Error) => void;

  constructor(
    readonly index: number,
    opts: DriverOptions,
    lines: StdoutLine[],
    private readonly app: acp.ClientApp,
  ) {
    this.lines = lines;
    this.broken = new Promise<never>((_, reject) => {
      this.breakWith = reject;
    });
    this.broken.catch(() => {});
    const [file, ...args] = opts.command;
    if (!file) throw new Error('agent command is empty: set use.agentCommand in playwright.config.ts');
    this.child = execa(file, args, {
      cwd: opts.processCwd,
      env: opts.env,
      extendEnv: false,
      detached: true,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      stripFinalNewline: false,
    });
    this.child.stdin?.on('error', () => {
      // EPIPE after the agent died: the exit is reported through `exited`.
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (d: string) => {
      this.stderr += d;
    });
    this.exited = this.child.then((r) => {
      this.exitedAt = Date.now();
      this.exit = r.signal ?? r.exitCode ?? null;
    });
  }

  /** Resolves once spawned; rejects with "agent command not found" on ENOENT. */
  async spawned(command: readonly string[]): Promise<void> {
    await new Promise<void>((res, rej) => {
      this.child.once('spawn', () => res());
      this.child.once('error', (e: NodeJS.ErrnoException) =>
        rej(
          e.code === 'ENOENT'
            ? new Error(
                `agent command not found: ${command.join(' ')} (check use.agentCommand in playwright.config.ts)`,
              )
            : e,
        ),
      );
    });
  }

  /** Taps stdout: keeps each line, fails on non-JSON, forwards the bytes to the SDK client. */
  connect(): void {
    const stdout = this.child.stdout!;
    // The unterminated line so far, as received (one concat per line: a 16 MB line is not copied per chunk).
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let overflowed = false;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    // Set once the SDK cancels its input (after a failure of its own): enqueueing or closing then throws.
    let inputDone = false;
    const input = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => {
        inputDone = true;
      },
    });
    const take = (bytes: Buffer<ArrayBufferLike>) => {
      const text = bytes.toString('utf8');
      this.lines.push({ text, process: this.index });
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        this.breakWith(
          new Error(
            `agent wrote a non-JSON line to stdout (process ${this.index + 1}, stdout line ${this.lines.length}): ${JSON.stringify(text.slice(0, 200))}\nstdout must carry ACP messages only; log to stderr.`,
          ),
        );
        return;
      }
      // The SDK would overflow its stack on it (a RangeError, no line named); normalization refuses it too.
      if (nestsDeeperThan(message)) {
        this.breakWith(
          new Error(
            `agent wrote a stdout line nested deeper than ${MAX_NORMALIZE_DEPTH} levels (process ${this.index + 1}, stdout line ${this.lines.length}); ACP messages nest a few levels.`,
          ),
        );
        return;
      }
      if (!inputDone) controller.enqueue(new Uint8Array(Buffer.concat([bytes, Buffer.from('\n')])));
    };
    stdout.on('data', (chunk: Buffer) => {
      if (overflowed) return;
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        const part = chunk.subarray(start, nl);
        take(pending.length ? Buffer.concat([...pending, part]) : part);
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
      }
      if (start === chunk.length) return;
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_LINE_BYTES) {
        // Memory stays bounded whatever the agent writes; the process is killed on this failure.
        overflowed = true;
        pending = [];
        this.breakWith(
          new Error(
            `agent wrote a stdout line over ${MAX_LINE_BYTES / 2 ** 20} MB without a newline (process ${this.index + 1}, stdout line ${this.lines.length + 1}); ACP messages are newline-delimited.`,
          ),
        );
      }
    });
    stdout.on('end', () => {
      if (pending.length) take(Buffer.concat(pending));
      pending = [];
      if (!inputDone) controller.close();
      inputDone = true;
    });
    const stdin = this.child.stdin!;
    const output = new WritableStream<Uint8Array>({
      write: (chunk) =>
        new Promise<void>((res) => {
          // A write after the agent died fails with EPIPE; the death is reported by `exited`.
          stdin.write(chunk, () => res());
        }),
      close: () => {
        stdin.end();
      },
    });
    this.connection = this.app.connect(acp.ndJsonStream(output, input));
    void this.exited.then(() => this.breakWith(new Error(this.exitMessage())));
  }

  /** Why the process is gone: its exit code and the end of its stderr. */
  exitMessage(): string {
    // Clipped, but long enough for a real error line (a path, a row, the fix): an agent may write a
    // megabyte-long stderr line.
    const lines = this.stderr
      .trimEnd()
      .split('\n')
      .map((l) => clipText(l, STDERR_LINE_CHARS));
    // The error line of a Node crash sits above its stack: show it, then the last lines.
    const errorLine = lines.findLast((l) => /^\w*Error\b|^Error:|^\S+Error:/.test(l));
    const last = lines.slice(-5);
    const tail = [...(errorLine && !last.includes(errorLine) ? [errorLine, '...'] : []), ...last].join(
      '\n  ',
    );
    return `agent process ${this.index + 1} exited (${String(this.exit)}) before the scenario finished${tail ? `; its stderr ends with:\n  ${tail}` : ''}`;
  }

  /** Whether the process ended by itself (not closed or killed by the harness). */
  get crashed(): boolean {
    return this.exitedAt > 0 && !this.closing && !this.killed;
  }

  private closing = false;
  private killed = false;

  /** Waits up to `ms` for the process to exit by itself; true when it did. */
  async exitsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((res) => {
        timer = setTimeout(() => res(false), ms);
      }),
    ]);
    clearTimeout(timer);
    return done;
  }

  /** Closes stdin and awaits a graceful exit; kills the process group when it does not come in time. */
  async close(graceMs: number): Promise<boolean> {
    this.closing = true;
    this.child.stdin?.end();
    let timer: NodeJS.Timeout | undefined;
    const graceful = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((res) => {
        timer = setTimeout(() => res(false), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!graceful) {
      this.kill();
      await this.exited;
    }
    this.connection?.close();
    return graceful;
  }

  /** Kills the whole process group (the agent and anything it started). */
  kill(): void {
    if (this.exitedAt === 0) this.killed = true;
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  get lifetimeMs(): number {
    return (this.exitedAt || Date.now()) - this.started;
  }
}

/**
 * Runs the scenario's steps against the agent command: a fresh process at the start and after each
 * `restart`, permission and fs requests answered as the scenario says, stdin closed and a graceful
 * exit awaited at the end. Throws {@link DriverError} (with everything observed) when it cannot finish.
 */
export async function runScenario(opts: DriverOptions): Promise<DriverResult> {
  const step = opts.step ?? directStep;
  const { scenario } = opts;
  const lines: StdoutLine[] = [];
  const processes: AgentProcess[] = [];
  const problems: string[] = [];
  let sessionId: string | undefined;
  let agentInfo: DriverResult['agentInfo'];
  let permissionIndex = 0;
  let watch: PromptWatch | undefined;
  let current: AgentProcess | undefined;

  const result = (): DriverResult => {
    const r: DriverResult = {
      stdout: lines,
      stderr: processes.map((p) => p.stderr),
      exits: processes.map((p) => p.exit),
      processMs: processes.map((p) => p.lifetimeMs),
      problems,
    };
    if (sessionId !== undefined) r.sessionId = sessionId;
    if (agentInfo) r.agentInfo = agentInfo;
    return r;
  };

  const inRoot = (path: string): string => {
    const abs = resolve(path);
    const rel = relative(opts.fsRoot, abs);
    if (!isAbsolute(path) || rel.startsWith('..') || isAbsolute(rel)) {
      throw acp.RequestError.invalidParams({ path }, `path is outside the session workspace: ${path}`);
    }
    return abs;
  };

  const sendCancel = (w: PromptWatch) => {
    if (w.cancelled || !sessionId || !current) return;
    w.cancelled = true;
    void current.connection.agent.notify('session/cancel', { sessionId });
  };

  const app = acp
    .client({ name: 'acp-snapshot' })
    .onNotification('session/update', ({ params }) => {
      const w = watch;
      if (!w || params.sessionId !== sessionId) return;
      w.updates++;
      const cancel = w.step.cancel;
      if (!cancel) return;
      if ('afterUpdates' in cancel && w.updates >= cancel.afterUpdates) sendCancel(w);
      if (
        'after' in cancel &&
        cancel.after === 'first_message_chunk' &&
        params.update.sessionUpdate === 'agent_message_chunk'
      ) {
        sendCancel(w);
      }
    })
    .onRequest('session/request_permission', ({ params }) => {
      const w = watch;
      if (w?.step.cancel && 'after' in w.step.cancel && w.step.cancel.after === 'permission_request') {
        sendCancel(w);
        return { outcome: { outcome: 'cancelled' } };
      }
      const n = permissionIndex++;
      const answer = scenario.permissions[n];
      if (!answer) {
        const msg = `${opts.name}: the agent asked permission #${n + 1} (tool call ${params.toolCall.toolCallId}) but input.json "permissions" has only ${scenario.permissions.length} answer(s); add one ("allow", "reject" or "cancel")`;
        problems.push(msg);
        throw acp.RequestError.invalidParams({}, msg);
      }
      if (answer === 'cancel') return { outcome: { outcome: 'cancelled' } };
      const optionId = chooseOption(answer, params.options);
      if (!optionId) {
        const msg = `${opts.name}: permission #${n + 1} should be answered "${answer}" but the agent offered no such option (${params.options.map((o) => o.kind).join(', ')})`;
        problems.push(msg);
        throw acp.RequestError.invalidParams({}, msg);
      }
      return { outcome: { outcome: 'selected', optionId } };
    });
  if (scenario.clientCapabilities.fs.readTextFile) {
    app.onRequest('fs/read_text_file', async ({ params }) => {
      const text = await readFile(inRoot(params.path), 'utf8');
      if (params.line == null && params.limit == null) return { content: text };
      const all = text.split('\n');
      const start = Math.max(0, (params.line ?? 1) - 1);
      const end = params.limit == null ? all.length : start + params.limit;
      return { content: all.slice(start, end).join('\n') };
    });
  }
  if (scenario.clientCapabilities.fs.writeTextFile) {
    app.onRequest('fs/write_text_file', async ({ params }) => {
      const file = inRoot(params.path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, params.content);
      return {};
    });
  }

  const start = async () => {
    const p = new AgentProcess(processes.length, opts, lines, app);
    processes.push(p);
    await p.spawned(opts.command);
    p.connect();
    current = p;
    return p;
  };

  const deadline = Date.now() + scenario.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let stepTitle = 'start';
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      for (const p of processes) p.kill();
      reject(
        new Error(
          `${opts.name}: timed out after ${scenario.timeoutMs} ms during ${stepTitle}; the agent's process group was killed (raise "timeoutMs" in input.json if the scenario is legitimately slow)`,
        ),
      );
    }, scenario.timeoutMs);
  });
  timedOut.catch(() => {});
  const guard = <T>(p: Promise<T>): Promise<T> => Promise.race([p, timedOut, current!.broken]);
  const graceMs = () => Math.max(100, Math.min(opts.exitGraceMs ?? 5000, deadline - Date.now()));

  try {
    await step('spawn agent', () => start().then(() => undefined));
    for (const [i, s] of scenario.steps.entries()) {
      stepTitle = `step ${i + 1} (${describeStep(s, i)})`;
      await step(describeStep(s, i), async () => {
        const agent = current!.connection.agent;
        switch (s.op) {
          case 'initialize': {
            // The SDK leaves the initialize result untyped on the client side; its schema type is this.
            const r: acp.InitializeResponse = await guard(
              agent.request('initialize', {
                protocolVersion: s.protocolVersion,
                clientCapabilities: scenario.clientCapabilities,
                clientInfo: { name: 'acp-snapshot', version: '0.1.0' },
              }),
            );
            if (r.agentInfo) agentInfo = { name: r.agentInfo.name, version: r.agentInfo.version };
            return;
          }
          case 'new_session': {
            const r = await guard(agent.request('session/new', { cwd: opts.sessionCwd, mcpServers: [] }));
            sessionId = r.sessionId;
            return;
          }
          case 'load_session':
            await guard(
              agent.request('session/load', { sessionId: sessionId!, cwd: opts.sessionCwd, mcpServers: [] }),
            );
            return;
          case 'restart': {
            const graceful = await current!.close(graceMs());
            if (!graceful)
              problems.push(
                `${opts.name}: agent process ${current!.index + 1} did not exit within the grace period after stdin closed; its process group was killed`,
              );
            await start();
            return;
          }
          case 'prompt': {
            watch = { stepIndex: i, step: s, updates: 0, cancelled: false };
            try {
              const r = await guard(
                agent.request('session/prompt', {
                  sessionId: sessionId!,
                  prompt: [{ type: 'text', text: s.text }],
                }),
              );
              if (s.expectError) {
                problems.push(
                  `${stepTitle}: expected a JSON-RPC error containing ${JSON.stringify(s.expectError)}, got stop reason "${r.stopReason}"`,
                );
              } else if (r.stopReason !== s.expectStopReason) {
                problems.push(
                  `${stepTitle}: expected stop reason "${s.expectStopReason}", got "${r.stopReason}"`,
                );
              }
            } catch (e) {
              if (!(e instanceof acp.RequestError)) throw e;
              if (!s.expectError || !e.message.includes(s.expectError)) {
                problems.push(`${stepTitle}: the agent answered with JSON-RPC error ${e.code}: ${e.message}`);
              }
            } finally {
              watch = undefined;
            }
            return;
          }
        }
      });
    }
    await step('close stdin and await exit', async () => {
      const graceful = await current!.close(graceMs());
      if (!graceful)
        problems.push(
          `${opts.name}: the agent did not exit within the grace period after stdin closed; its process group was killed`,
        );
    });
  } catch (e) {
    // The SDK reports a dead peer as a closed connection before the exit event: give the exit a moment
    // to arrive so the failure names the crash (exit code, stderr) rather than the closed pipe.
    const answered = e instanceof acp.RequestError;
    // A broken stdout line is the cause even when the agent exits right after writing it.
    const violation = !answered && STDOUT_VIOLATION.test((e as Error).message);
    if (current && !answered && !violation && !/timed out after/.test((e as Error).message))
      await current.exitsWithin(2000);
    const crash = violation ? undefined : processes.find((p) => p.crashed);
    for (const p of processes) p.kill();
    await Promise.all(processes.map((p) => p.exited));
    const message = crash
      ? crash.exitMessage()
      : e instanceof acp.RequestError
        ? `${opts.name}: ${stepTitle}: the agent answered with JSON-RPC error ${e.code}: ${e.message}`
        : (e as Error).message;
    throw new DriverError(message, result());
  } finally {
    clearTimeout(timer);
  }
  return result();
}

/** The variables the harness passes to an agent: the contract of README "Environment contract". */
export interface AgentEnvInput {
  mode: 'replay' | 'record' | 'refresh';
  scenario: string;
  /** Absolute path of the scenario's session.jsonl (replay and refresh). */
  fixture?: string;
  /** Absolute path of replay.override.json (overridden scenarios only). */
  override?: string;
  persistRoot: string;
  spillRoot: string;
  home: string;
  /** Record mode only: the model endpoint and key. */
  baseUrl?: string;
  apiKey?: string;
}

/** The scrubbed agent environment: the contract variables plus PATH, LANG and TZ=UTC, nothing inherited. */
export function agentEnv(
  input: AgentEnvInput,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {
    ACP_SNAPSHOT_MODE: input.mode,
    ACP_SNAPSHOT_SCENARIO: input.scenario,
    ACP_SNAPSHOT_PERSIST_ROOT: input.persistRoot,
    ACP_SNAPSHOT_SPILL_ROOT: input.spillRoot,
    HOME: input.home,
    PATH: parent.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: parent.LANG ?? 'C.UTF-8',
    TZ: 'UTC',
  };
  if (input.fixture) env.ACP_SNAPSHOT_FIXTURE = input.fixture;
  if (input.override) env.ACP_SNAPSHOT_OVERRIDE = input.override;
  if (input.mode === 'record') {
    if (input.baseUrl) env.ACP_SNAPSHOT_BASE_URL = input.baseUrl;
    if (input.apiKey) env.DEEPSEEK_API_KEY = input.apiKey;
  }
  return env;
}
