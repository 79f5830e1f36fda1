import { readFile } from 'node:fs/promises';
import * as acp from '@agentclientprotocol/sdk';
import { AgentProcess, type StdoutLine } from '../process/agent-process.js';
import { type AgentProfile, anytimeCounts, type ExitPolicy } from '../profile.js';
import type { TestRoots } from '../roots/roots.js';
import { serveClientFs } from './client-fs.js';
import type { StepRunner } from './driver.js';
import { chooseOption } from './driver.js';
import { Exchange } from './exchange.js';

/** How a test answers a permission request: by option kind, or by a function of the request. */
export type PermissionAnswer =
  | 'allow'
  | 'reject'
  | 'cancel'
  | ((request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse['outcome']);

/** What the client needs to start and talk to the agent. */
export interface AcpClientOptions {
  /** The agent command line. */
  command: readonly string[];
  /** The agent's complete environment (nothing else is inherited). */
  env: Record<string, string>;
  /** Where the agent process starts, and the cwd sent in session/new and session/load. */
  cwd: string;
  /** The client capabilities sent in initialize (default: fs read and write, no terminal). */
  clientCapabilities?: acp.ClientCapabilities;
  /** How long a process may take to exit after stdin closes before its group is killed. */
  exitGraceMs?: number;
  /** How the agent is asked to exit (default `stdin`; see AgentProfile.exit). */
  exit?: ExitPolicy;
  /** How long one request may take before the test fails naming it (default 60 s). */
  requestTimeoutMs?: number;
  /** How long close() waits for the anytime updates the stdout snapshot holds (default ANYTIME_DEADLINE_MS). */
  anytimeDeadlineMs?: number;
  step?: StepRunner;
  /** What `expect(acp).toMatchAcpSnapshot()` needs besides the wire: set by the `acp` fixture. */
  snapshot?: SnapshotContext;
}

/** The test's roots, the agent's profile and the workspace seed, for snapshots of the run. */
export interface SnapshotContext {
  roots: TestRoots;
  profile: AgentProfile;
  workspaceSeed?: string;
  /** The model's answers are replayed from a recording (the log's header then names the replay plugin). */
  replayed?: boolean;
  /** The model's calls are being recorded: the snapshots are rewritten from this run, as the recording is. */
  recording?: boolean;
  /**
   * The stdout snapshot the run will be compared with: before stdin closes, a run that is not recording waits
   * until as many of each of the profile's anytime updates have arrived as the snapshot holds.
   */
  expectedStdout?: string;
  /** The model replay's failure so far (an HTTP model's verdict), reported before any snapshot difference. */
  modelReplayFailure?: () => string | undefined;
}

/** How long close() waits at most for the anytime updates the snapshot holds (then the comparison names what is missing). */
export const ANYTIME_DEADLINE_MS = 10_000;

/** What a prompt turn produced. */
export interface PromptResult {
  stopReason: acp.StopReason;
  /** The session/update notifications of the turn, in order. */
  updates: acp.SessionUpdate[];
  /** The agent's message chunks of the turn, joined. */
  text: string;
}

const DEFAULT_CAPABILITIES: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: false,
};

export class AcpClient {
  /** Every line every agent process wrote to stdout, exactly as written. */
  readonly stdout: StdoutLine[] = [];
  /** Every line the client wrote to an agent process's stdin: the other direction of the wire. */
  readonly sent: StdoutLine[] = [];
  /** The processes started so far (one per start and restart). */
  readonly processes: AgentProcess[] = [];
  /** The session being driven (set by newSession or loadSession). */
  sessionId: string | undefined;
  /** Problems that did not stop the exchange (an unanswered permission request...): the test fails on them. */
  readonly problems: string[] = [];
  private readonly answers: PermissionAnswer[] = [];
  private readonly exchange = new Exchange();
  private turn: acp.SessionUpdate[] | undefined;
  /** `session/prompt` requests sent, in every process of the client. */
  promptsSent = 0;
  private readonly waiters = new Set<{ kind: string; resolve: (u: acp.SessionUpdate) => void }>();
  /** Called on every session/update notification, of any session. */
  private readonly updateListeners = new Set<() => void>();
  /** Resolves once the latest prompt request is queued on the connection. */
  private promptSent: Promise<void> | undefined;
  private current: AgentProcess | undefined;
  private readonly app: acp.ClientApp;
  private readonly step: StepRunner;

  /** For `toMatchAcpSnapshot()`. */
  readonly snapshot: SnapshotContext | undefined;

  constructor(private readonly opts: AcpClientOptions) {
    this.snapshot = opts.snapshot;
    this.step = opts.step ?? ((_t, body) => body());
    const caps = opts.clientCapabilities ?? DEFAULT_CAPABILITIES;
    this.app = acp
      .client({ name: 'acp-snapshot' })
      .onNotification('session/update', ({ params }) => {
        for (const l of [...this.updateListeners]) l();
        if (params.sessionId !== this.sessionId) return;
        this.exchange.update(params.update);
        this.turn?.push(params.update);
        for (const w of [...this.waiters])
          if (w.kind === params.update.sessionUpdate) w.resolve(params.update);
      })
      .onRequest('session/request_permission', ({ params }) => this.answerPermission(params));
    serveClientFs(this.app, opts.cwd, caps.fs, (line) => this.exchange.note(line));
  }

  /** Queues answers for the agent's next permission requests, in order. */
  answerPermissions(...answers: PermissionAnswer[]): void {
    this.answers.push(...answers);
  }

  /** Starts the agent process (done by the first request when not called). */
  async start(): Promise<void> {
    await this.step('spawn agent', async () => {
      const p = new AgentProcess(
        this.processes.length,
        { command: this.opts.command, env: this.opts.env, processCwd: this.opts.cwd },
        this.stdout,
        this.app,
        this.sent,
      );
      this.processes.push(p);
      await p.spawned(this.opts.command);
      p.connect();
      this.current = p;
    });
  }

  async initialize(params: Partial<acp.InitializeRequest> = {}): Promise<acp.InitializeResponse> {
    return this.exchangeStep('initialize', async (agent) => {
      const r: acp.InitializeResponse = await agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: this.opts.clientCapabilities ?? DEFAULT_CAPABILITIES,
        clientInfo: { name: 'acp-snapshot', version: '0.1.0' },
        ...params,
      });
      const problem = this.snapshot?.profile.checkInitialize?.(r);
      if (problem) throw new Error(problem);
      return r;
    });
  }

  async newSession(params: Partial<acp.NewSessionRequest> = {}): Promise<acp.NewSessionResponse> {
    return this.exchangeStep('session/new', async (agent) => {
      const r = await agent.request('session/new', { cwd: this.opts.cwd, mcpServers: [], ...params });
      this.sessionId = r.sessionId;
      return r;
    });
  }

  async loadSession(sessionId = this.sessionId): Promise<acp.LoadSessionResponse> {
    if (!sessionId) throw new Error('loadSession: no session id (call newSession first, or pass one)');
    return this.exchangeStep('session/load', async (agent) => {
      this.sessionId = sessionId;
      return agent.request('session/load', { sessionId, cwd: this.opts.cwd, mcpServers: [] });
    });
  }

  /** session/list: one page (pass the previous page's `nextCursor` for the next). */
  async listSessions(params: Partial<acp.ListSessionsRequest> = {}): Promise<acp.ListSessionsResponse> {
    return this.exchangeStep('session/list', (agent) => agent.request('session/list', params));
  }

  /** session/resume: continue a persisted session without its history being replayed. */
  async resumeSession(sessionId = this.sessionId): Promise<acp.ResumeSessionResponse> {
    if (!sessionId) throw new Error('resumeSession: no session id (pass one, e.g. from listSessions)');
    return this.exchangeStep('session/resume', async (agent) => {
      this.sessionId = sessionId;
      return agent.request('session/resume', { sessionId, cwd: this.opts.cwd });
    });
  }

  /** session/close of the current (or the given) session. */
  async closeSession(sessionId = this.sessionId): Promise<acp.CloseSessionResponse> {
    const id = sessionId ?? this.requireSession('closeSession');
    return this.exchangeStep('session/close', (agent) => agent.request('session/close', { sessionId: id }));
  }

  /** session/set_mode of the current session. */
  async setMode(modeId: string): Promise<acp.SetSessionModeResponse> {
    const sessionId = this.requireSession('setMode');
    return this.exchangeStep(`session/set_mode ${modeId}`, (agent) =>
      agent.request('session/set_mode', { sessionId, modeId }),
    );
  }

  /** session/set_config_option of the current session. */
  async setConfigOption(configId: string, value: string): Promise<acp.SetSessionConfigOptionResponse> {
    const sessionId = this.requireSession('setConfigOption');
    return this.exchangeStep(`session/set_config_option ${configId}=${value}`, (agent) =>
      agent.request('session/set_config_option', { sessionId, configId, value }),
    );
  }

  /** Sends a prompt (text, or any content blocks) and waits for the turn to end. */
  async prompt(content: string | acp.ContentBlock[]): Promise<PromptResult> {
    const blocks: acp.ContentBlock[] =
      typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    const sessionId = this.requireSession('prompt');
    const quoted =
      typeof content === 'string'
        ? JSON.stringify(content.length > 50 ? `${content.slice(0, 47)}...` : content)
        : `[${blocks.map((b) => b.type).join(', ')}]`;
    let sent!: () => void;
    this.promptSent = new Promise<void>((r) => {
      sent = r;
    });
    this.promptsSent++;
    return this.exchangeStep(`session/prompt ${quoted}`, async (agent) => {
      const updates: acp.SessionUpdate[] = [];
      this.turn = updates;
      try {
        const pending = agent.request('session/prompt', { sessionId, prompt: blocks });
        // Queued: the SDK writes in order, so a cancel sent from now on follows the prompt on the wire.
        sent();
        const r = await pending;
        this.exchange.note(`→ ${r.stopReason}`);
        const text = updates
          .map((u) =>
            u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '',
          )
          .join('');
        return { stopReason: r.stopReason, updates, text };
      } finally {
        this.turn = undefined;
      }
    });
  }

  /**
   * Starts a prompt and returns at once: the test cancels it, or waits with `await turn`. Use it to
   * cancel a turn in flight (`const turn = acp.promptInFlight(...); await acp.cancel(); await turn`).
   */
  promptInFlight(content: string | acp.ContentBlock[]): Promise<PromptResult> {
    const turn = this.prompt(content);
    turn.catch(() => {});
    return turn;
  }

  /**
   * Resolves with the first `session/update` of this kind from now on, or one the turn in flight already
   * had: e.g. `await acp.waitForUpdate('agent_message_chunk')` before a cancel, so the turn is under way.
   */
  waitForUpdate<K extends acp.SessionUpdate['sessionUpdate']>(
    kind: K,
  ): Promise<Extract<acp.SessionUpdate, { sessionUpdate: K }>> {
    type U = Extract<acp.SessionUpdate, { sessionUpdate: K }>;
    const had = this.turn?.find((u) => u.sessionUpdate === kind);
    if (had) return Promise.resolve(had as U);
    const timeoutMs = this.opts.requestTimeoutMs ?? 60_000;
    return this.step(`wait for ${kind}`, async () => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = { kind, resolve: (_: acp.SessionUpdate) => {} };
      try {
        const update = new Promise<U>((resolve, reject) => {
          waiter.resolve = (u) => resolve(u as U);
          this.waiters.add(waiter);
          timer = setTimeout(
            () => reject(new Error(`no ${kind} update from the agent within ${timeoutMs} ms`)),
            timeoutMs,
          );
        });
        // An agent that dies meanwhile fails the wait at once, naming its exit.
        return await (this.current ? Promise.race([update, this.current.broken]) : update);
      } finally {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      }
    });
  }

  /** Sends session/cancel for the current session (a notification: the prompt's response says how it ended). */
  async cancel(): Promise<void> {
    const sessionId = this.requireSession('cancel');
    // A cancel right after promptInFlight must not overtake the prompt it cancels.
    await this.promptSent;
    this.exchange.note('session/cancel');
    await this.current?.connection.agent.notify('session/cancel', { sessionId });
  }

  /** Closes stdin, waits for a graceful exit (killing the group after the grace period), starts a new process. */
  async restart(): Promise<void> {
    await this.step('restart agent process', async () => {
      await this.closeCurrent();
    });
    await this.start();
  }

  /** Closes stdin and waits for the agent to exit; true when it exited within the grace period. */
  async close(): Promise<boolean> {
    // Notifications the agent sends after its last response are part of the run: those the recording saw
    // (a condition), then the profile's settle wait.
    await this.awaitAnytimeUpdates();
    await settleStdout(this, this.opts.snapshot?.profile.settleMs ?? 0);
    return this.step('close stdin and await exit', () => this.closeCurrent());
  }

  /**
   * Waits until the profile's anytime updates have arrived as many times each as the stdout snapshot holds
   * (they may come after the last response, in any order), until the process exits, or ANYTIME_DEADLINE_MS.
   */
  async awaitAnytimeUpdates(): Promise<void> {
    const s = this.opts.snapshot;
    const kinds = s?.profile.normalize?.anytimeUpdates ?? [];
    const running = this.current;
    if (!s?.expectedStdout || s.recording || kinds.length === 0 || !running) return;
    const expected = await readFile(s.expectedStdout, 'utf8').catch(() => undefined);
    if (expected === undefined) return;
    const want = anytimeCounts(expected.split('\n'), kinds);
    const arrived = () => {
      const seen = anytimeCounts(
        this.stdout.map((l) => l.text),
        kinds,
      );
      return [...want].every(([kind, n]) => (seen.get(kind) ?? 0) >= n);
    };
    if (arrived()) return;
    let check!: () => void;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        check = () => arrived() && resolve();
        this.updateListeners.add(check);
        timer = setTimeout(resolve, this.opts.anytimeDeadlineMs ?? ANYTIME_DEADLINE_MS);
      }),
      running.exited,
    ]);
    this.updateListeners.delete(check);
    clearTimeout(timer);
  }

  /** Kills every process of the client (the fixture's teardown; a test need not call it). */
  async dispose(): Promise<void> {
    for (const p of this.processes) p.kill();
    await Promise.all(this.processes.map((p) => p.exited));
  }

  /** Whether an agent process is running (a closed client has nothing more to say). */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** The stderr of every process, for failure reports. */
  get stderr(): string[] {
    return this.processes.map((p) => p.stderr);
  }

  private async closeCurrent(): Promise<boolean> {
    const p = this.current;
    if (!p) return true;
    this.current = undefined;
    const exit = this.opts.exit ?? 'stdin';
    const graceful = await p.close(this.opts.exitGraceMs ?? 5000, exit);
    if (!graceful)
      this.problems.push(
        `agent process ${p.index + 1} did not exit within ${this.opts.exitGraceMs ?? 5000} ms after ${exit === 'signal' ? 'stdin closed and SIGTERM' : 'stdin closed'}; its process group was killed${exit === 'stdin' ? ' (an agent that never exits on stdin close needs `exit: "signal"` in its profile)' : ''}`,
      );
    return graceful;
  }

  private requireSession(what: string): string {
    if (!this.sessionId)
      throw new Error(`${what}: no session yet (call acp.newSession() or acp.loadSession(id) first)`);
    return this.sessionId;
  }

  /** One exchange as one step: the request, what the agent did meanwhile (nested steps), the answer. */
  private async exchangeStep<T>(
    title: string,
    body: (agent: acp.ClientConnection['agent']) => Promise<T>,
  ): Promise<T> {
    if (!this.current) await this.start();
    const proc = this.current!;
    return this.step(title, async () => {
      this.exchange.reset();
      const timeoutMs = this.opts.requestTimeoutMs ?? 60_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${title}: no answer from the agent within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([body(proc.connection.agent), proc.broken, timedOut]);
      } catch (e) {
        if (e instanceof acp.RequestError) {
          this.exchange.note(`→ JSON-RPC error ${e.code}: ${e.message.slice(0, 80)}`);
          throw new AcpRequestError(title, e);
        }
        // The SDK reports a dead peer as a closed connection before the exit arrives: name the exit instead.
        if (await proc.exitsWithin(2000)) throw new Error(`${title}: ${proc.exitMessage()}`);
        throw e;
      } finally {
        clearTimeout(timer);
        for (const line of this.exchange.take()) await this.step(line, async () => {});
      }
    });
  }

  private answerPermission(params: acp.RequestPermissionRequest): acp.RequestPermissionResponse {
    const asked = `permission request: ${params.toolCall.title ?? params.toolCall.toolCallId}`;
    const answer = this.answers.shift();
    if (!answer) {
      const msg = `the agent asked permission for "${params.toolCall.title ?? params.toolCall.toolCallId}" but the test queued no answer; call acp.answerPermissions('allow' | 'reject' | 'cancel') before the prompt`;
      this.exchange.note(`${asked} → no answer queued`);
      this.problems.push(msg);
      throw acp.RequestError.invalidParams({}, msg);
    }
    if (typeof answer === 'function') {
      const outcome = answer(params);
      this.exchange.note(`${asked} → ${outcome.outcome === 'selected' ? outcome.optionId : outcome.outcome}`);
      return { outcome };
    }
    this.exchange.note(`${asked} → ${answer}`);
    if (answer === 'cancel') return { outcome: { outcome: 'cancelled' } };
    const optionId = chooseOption(answer, params.options);
    if (!optionId) {
      const msg = `permission for "${params.toolCall.title}" should be answered "${answer}" but the agent offered no such option (${params.options.map((o) => o.kind).join(', ')})`;
      this.problems.push(msg);
      throw acp.RequestError.invalidParams({}, msg);
    }
    return { outcome: { outcome: 'selected', optionId } };
  }
}

/** The agent answered a request with a JSON-RPC error. */
export class AcpRequestError extends Error {
  override name = 'AcpRequestError';
  readonly code: number;
  constructor(
    readonly request: string,
    override readonly cause: acp.RequestError,
  ) {
    super(`${request}: the agent answered with JSON-RPC error ${cause.code}: ${cause.message}`);
    this.code = cause.code;
  }
}

/**
 * Waits until the agent has written nothing to stdout for `ms`: the quiet period a profile declares for
 * notifications that arrive after a response (there is no event to wait for: the agent may send nothing).
 */
export async function settleStdout(acp: Pick<AcpClient, 'stdout'>, ms: number): Promise<void> {
  if (ms <= 0) return;
  for (let seen = -1; seen !== acp.stdout.length; ) {
    seen = acp.stdout.length;
    await new Promise((r) => setTimeout(r, ms));
  }
}
