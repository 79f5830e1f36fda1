import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile } from 'node:fs/promises';
import * as acp from '@agentclientprotocol/sdk';
import { type McpTestServers, refuseUndeclaredHttp } from '../mcp/mcp-servers.js';
import { AgentProcess, type StdoutLine } from '../process/agent-process.js';
import { type AgentProfile, anytimeCounts, type ExitPolicy } from '../profile.js';
import type { TestRoots } from '../roots/roots.js';
import type { TurnPoint } from '../scenario/input.js';
import { serveClientFs } from './client-fs.js';
import { ClientTerminals, type LeftTerminal } from './client-terminals.js';
import type { Deadline } from './deadline.js';
import { Exchange } from './exchange.js';
import {
  answerPermission,
  askedLine,
  type PermissionAnswer,
  type PermissionSource,
  queuedAnswers,
} from './permissions.js';
import { describePoint, PointWatcher } from './points.js';
import {
  asV1PermissionRequest,
  idleStopReason,
  initializeV2,
  type Negotiation,
  type ProtocolChoice,
  protocolLine,
  v2Capabilities,
  v2ClientApp,
  v2McpServers,
  v2TurnText,
} from './protocol-v2.js';
import { v2WireProblems } from './v2-wire-rules.js';

export type { PermissionAnswer, PermissionSource } from './permissions.js';

/**
 * Wraps one exchange for reporting (Playwright's `test.step` in specs). `at.step` is the 0-based index of the
 * scenario step it runs, for a step of the scenario itself (not for the spawn, the close or nested lines).
 */
export type StepRunner = <T>(title: string, body: () => Promise<T>, at?: { step: number }) => Promise<T>;

/** What the client needs to start and talk to the agent. */
export interface AcpClientOptions {
  /** The agent command line. */
  command: readonly string[];
  /** The agent's complete environment (nothing else is inherited). */
  env: Record<string, string>;
  /** Where the agent process starts, and (unless `sessionCwd` says otherwise) the cwd of a new session. */
  cwd: string;
  /** The cwd sent in session/new when the call gives none (default `cwd`). */
  sessionCwd?: string;
  /** fs/* requests are served for paths inside this directory only (default `cwd`). */
  fsRoot?: string;
  /** Names the run in the problems the client records (a scenario's name). */
  name?: string;
  /** The client capabilities sent in initialize (default: fs read and write, no terminal). */
  clientCapabilities?: acp.ClientCapabilities;
  /** Offer client terminals (`terminal: true` in initialize, terminal/* served; see client-terminals.ts). */
  terminal?: boolean;
  /** Extensions declared in the client capabilities' `_meta` of initialize, merged over the profile's. */
  clientMeta?: Record<string, unknown>;
  /** The MCP servers session/new and session/load send when the call names none (default none). */
  mcpServers?: acp.McpServer[];
  /** The test MCP servers of the test (`acp.mcp.attach(spec)`), whose traffic is a snapshot surface. */
  mcp?: McpTestServers;
  /** Where permission answers come from (default: the answers queued with answerPermissions). */
  permissions?: PermissionSource;
  /** How long a process may take to exit after stdin closes before its group is killed. */
  exitGraceMs?: number;
  /** How the agent is asked to exit (default `stdin`; see AgentProfile.exit). */
  exit?: ExitPolicy;
  /**
   * How long one request may take before the test fails naming it (default 60 s; with a `deadline`, no
   * limit of its own).
   */
  requestTimeoutMs?: number;
  /** The time the whole run must end by: every wait races it, and the exit grace period is cut to it. */
  deadline?: Deadline;
  /** How long close() waits for what the stdout snapshot holds (default ANYTIME_DEADLINE_MS). */
  anytimeDeadlineMs?: number;
  step?: StepRunner;
  /** What `expect(acp).toMatchAcpSnapshot()` needs besides the wire: set by the `acp` fixture. */
  snapshot?: SnapshotContext;
  /** The ACP version initialize asks for (default 1; see protocol-v2.ts). */
  protocolVersion?: ProtocolChoice;
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
  /** The snapshots are rewritten from this run (`--update-snapshots`): nothing to wait for but a quiet stdout. */
  updating?: boolean;
  /**
   * The stdout snapshot the run will be compared with: before stdin closes, a run that is not recording waits
   * for what it holds (see `awaitLateNotifications`).
   */
  expectedStdout?: string;
  /** Whether the replayed model still waits for recorded calls (an HTTP model's background calls after the turn). */
  awaitingModelCalls?: () => boolean;
  /** The model replay's failure so far (an HTTP model's verdict), reported before any snapshot difference. */
  modelReplayFailure?: () => string | undefined;
}

/** How long close() waits at most for what the stdout snapshot holds (then the comparison names what is missing). */
export const ANYTIME_DEADLINE_MS = 10_000;

/**
 * Where a prompt turn is sent, and the points during it at which the client acts: `cancel` sends
 * session/cancel, `kill` SIGKILLs the agent's process group (the turn then never answers). A point is a
 * condition on what the client has seen (docs/scenarios.md, "Adding a scenario").
 */
export interface PromptOptions {
  /** The session to prompt (default: the current one). */
  sessionId?: string;
  cancel?: TurnPoint;
  kill?: TurnPoint;
}

/** What a prompt turn produced. */
export interface PromptResult {
  stopReason: acp.StopReason;
  /** The session/update notifications of the turn, in order. */
  updates: acp.SessionUpdate[];
  /** The agent's message chunks of the turn, joined. */
  text: string;
}

/** A turn ended by its kill point: the agent was killed, so the prompt has no response. */
export interface KilledTurn {
  killed: true;
  /** The session/update notifications of the turn up to the kill, in order. */
  updates: acp.SessionUpdate[];
  /** The agent's message chunks of the turn up to the kill, joined. */
  text: string;
}

/** The prompt turn in flight: its session, its updates so far and the points it watches. */
interface Turn {
  sessionId: string;
  updates: acp.SessionUpdate[];
  cancel?: PointWatcher;
  kill?: PointWatcher;
  /** ACP v2: resolves with the stop reason of the idle state update that ends the turn. */
  idle?: (stopReason: string) => void;
}

/** The reported step a request runs in: what its problems are prefixed with, and its own time limit. */
interface OpenStep {
  label: string;
  timedOut?: Promise<never>;
}

/**
 * The reported steps open in the current async context, by client. One storage for every client: on Node 20 an
 * AsyncLocalStorage that has run once stays enabled for the life of the process, and every promise created
 * anywhere then pays for each one, so a storage per client made a worker slower with every test it ran.
 */
const openSteps = new AsyncLocalStorage<ReadonlyMap<AcpClient, OpenStep>>();

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
  /** The session being driven (set by newSession, loadSession and resumeSession). */
  sessionId: string | undefined;
  /** The sessions session/new created, in order, with the cwd each was created in. */
  readonly sessions: Array<{ sessionId: string; cwd: string }> = [];
  /** Problems that did not stop the exchange (an unanswered permission request...): the test fails on them. */
  readonly problems: string[] = [];
  /** `session/prompt` requests sent, in every process of the client. */
  promptsSent = 0;
  private readonly answers: PermissionAnswer[] = [];
  private readonly permissions: PermissionSource;
  /** Permission requests answered from `permissions` (those a cancel or kill point took do not count). */
  private permissionsAsked = 0;
  private readonly exchange = new Exchange();
  private turn: Turn | undefined;
  private readonly waiters = new Set<{ kind: string; resolve: (u: acp.SessionUpdate) => void }>();
  /** Called after each stdout line of any process is kept. */
  private readonly lineListeners = new Set<() => void>();
  /** Resolves once the latest prompt request is queued on the connection. */
  private promptSent: Promise<void> | undefined;
  private current: AgentProcess | undefined;
  /** Processes killed at a kill point: gone on purpose, so closing them waits for nothing. */
  private readonly killedAtPoint = new Set<AgentProcess>();
  /** The reported step the caller is in: requests made inside it are part of it, not steps of their own. */
  private openStep(): OpenStep | undefined {
    return openSteps.getStore()?.get(this);
  }
  private readonly app: acp.ClientApp;
  /** ACP v2: the version initialize settled (undefined before it, and on v1 when v1 was asked for). */
  negotiation: Negotiation | undefined;
  private readonly appV2 = v2ClientApp({
    update: (params) => this.onUpdate(params as unknown as acp.SessionNotification),
    permission: (params) =>
      this.onPermissionRequest(asV1PermissionRequest(params)) as acp.RequestPermissionResponse,
  });
  private readonly stepRunner: StepRunner;
  private readonly capabilities: acp.ClientCapabilities;
  /** What the agent answered to initialize (v1), for the checks session/new makes against it. */
  private initialized: acp.InitializeResponse | undefined;

  private readonly mcpServers: McpTestServers | undefined;
  /** The terminals served to the agent, when the client offers them. */
  readonly terminals: ClientTerminals | undefined;

  /** For `toMatchAcpSnapshot()`. */
  readonly snapshot: SnapshotContext | undefined;

  constructor(private readonly opts: AcpClientOptions) {
    this.snapshot = opts.snapshot;
    this.mcpServers = opts.mcp;
    this.stepRunner = opts.step ?? ((_t, body) => body());
    this.capabilities = opts.clientCapabilities ?? DEFAULT_CAPABILITIES;
    if (opts.terminal) this.capabilities = { ...this.capabilities, terminal: true };
    if (opts.clientMeta)
      this.capabilities = { ...this.capabilities, _meta: { ...this.capabilities._meta, ...opts.clientMeta } };
    this.permissions = opts.permissions ?? queuedAnswers(this.answers);
    this.app = acp
      .client({ name: 'acp-snapshot' })
      .onNotification('session/update', ({ params }) => this.onUpdate(params))
      .onRequest('session/request_permission', ({ params }) => this.onPermissionRequest(params));
    serveClientFs(this.app, opts.fsRoot ?? opts.cwd, this.capabilities.fs, (line) =>
      this.exchange.note(line),
    );
    this.terminals = this.capabilities.terminal
      ? new ClientTerminals({
          env: opts.env,
          cwdOf: (sessionId) => this.cwdOf(sessionId),
          note: (line) => this.exchange.note(line),
        })
      : undefined;
    this.terminals?.serve(this.app);
  }

  /** The test's MCP servers: `acp.newSession({ mcpServers: [await acp.mcp.attach(spec)] })`. */
  get mcp(): McpTestServers {
    if (!this.mcpServers)
      throw new Error(
        'acp.mcp: this client was made without test MCP servers (the acp fixture gives it them)',
      );
    return this.mcpServers;
  }

  /** The test's MCP servers when the client has them (the snapshot matcher asks: a bare client has none). */
  get mcpIfAny(): McpTestServers | undefined {
    return this.mcpServers;
  }

  /** Queues answers for the agent's next permission requests, in order. */
  answerPermissions(...answers: PermissionAnswer[]): void {
    this.answers.push(...answers);
  }

  /** Starts the agent process (done by the first request when not called). */
  async start(): Promise<void> {
    await this.reported('spawn agent', async () => {
      const p = new AgentProcess(
        this.processes.length,
        {
          command: this.opts.command,
          env: this.opts.env,
          processCwd: this.opts.cwd,
          onLine: () => {
            for (const l of [...this.lineListeners]) l();
          },
        },
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

  /**
   * Runs `body` as one reported step (Playwright's `test.step` in specs): the requests it makes belong to it
   * (no step of their own, no time limit of their own, their errors reach `body` as the agent sent them),
   * problems recorded meanwhile are prefixed with `label` (default: the title), and what the agent did
   * meanwhile is listed under it. A scenario step is one of these.
   */
  async step<T>(
    title: string,
    body: () => Promise<T>,
    options: { at?: { step: number }; label?: string } = {},
  ): Promise<T> {
    return this.stepRunner(
      title,
      async () => {
        this.exchange.reset();
        try {
          const open = new Map(openSteps.getStore()).set(this, { label: options.label ?? title });
          return await openSteps.run(open, body);
        } finally {
          // What happened inside the exchange, in order, as nested steps a reviewer can read.
          for (const line of this.exchange.take()) await this.stepRunner(line, async () => {});
        }
      },
      options.at,
    );
  }

  /** Adds a line to the report of the step in progress (what a response meant, say). */
  note(line: string): void {
    this.exchange.note(line);
  }

  /**
   * initialize. With `protocolVersion` 2 or 'highest' it asks for v2: on v2 the result is the v2 one (`info`,
   * `capabilities`), on an agent that answered 1 ('highest' only) the v1 one.
   */
  async initialize(params: Partial<acp.InitializeRequest> = {}): Promise<acp.InitializeResponse> {
    const choice = this.opts.protocolVersion ?? 1;
    if (choice !== 1 && params.protocolVersion === undefined) return this.initializeV2(choice, params);
    return this.request('initialize', async (proc) => {
      // The SDK leaves the initialize result untyped on the client side; its schema type is this.
      const r: acp.InitializeResponse = await this.guard(
        proc,
        proc.connection.agent.request('initialize', {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: this.capabilities,
          clientInfo: { name: 'acp-snapshot', version: '0.1.0' },
          ...params,
        }),
      );
      const problem = this.snapshot?.profile.checkInitialize?.(r);
      if (problem) throw new Error(problem);
      this.initialized = r;
      return r;
    });
  }

  /** ACP v2 (protocol-v2.ts): asks for 2, settles on what the agent answered. */
  private initializeV2(choice: 2 | 'highest', params: Partial<acp.InitializeRequest>) {
    return this.request('initialize', async (proc) => {
      const { protocolVersion: _, clientCapabilities, clientInfo: __, ...extra } = params;
      const r = await initializeV2(
        proc,
        { v1: this.app, v2: this.appV2 },
        { capabilities: v2Capabilities(clientCapabilities ?? this.capabilities), extra },
        choice === 2,
        (p) => this.guard(proc, p),
      );
      this.negotiation = {
        asked: choice,
        version: r.version,
        ...(r.version === 1 && r.agent ? { agent: r.agent } : {}),
      };
      if (r.version === 1) this.exchange.note(protocolLine(this.negotiation));
      return r.result as acp.InitializeResponse;
    });
  }

  /** The agent side of the connection requests go to: v2's once initialize settled on it (same method names). */
  private agentOf(proc: AgentProcess): acp.ClientConnection['agent'] {
    return (proc.connectionV2?.agent ?? proc.connection.agent) as acp.ClientConnection['agent'];
  }

  async newSession(params: Partial<acp.NewSessionRequest> = {}): Promise<acp.NewSessionResponse> {
    const mcpServers = params.mcpServers ?? this.opts.mcpServers ?? [];
    if (this.initialized)
      refuseUndeclaredHttp(
        'session/new',
        mcpServers,
        this.initialized.agentCapabilities,
        this.initialized.agentInfo?.name ?? 'the agent',
      );
    return this.request('session/new', async (proc) => {
      const cwd = params.cwd ?? this.opts.sessionCwd ?? this.opts.cwd;
      const r = await this.guard(
        proc,
        this.agentOf(proc).request('session/new', {
          ...params,
          mcpServers: proc.connectionV2 ? (v2McpServers(mcpServers) as acp.McpServer[]) : mcpServers,
          cwd,
        }),
      );
      this.sessionId = r.sessionId;
      this.sessions.push({ sessionId: r.sessionId, cwd });
      return r;
    });
  }

  /** session/load, in the cwd the session was created in (when this client created it). */
  async loadSession(sessionId = this.sessionId): Promise<acp.LoadSessionResponse> {
    if (!sessionId) throw new Error('loadSession: no session id (call newSession first, or pass one)');
    if (this.initialized)
      refuseUndeclaredHttp(
        'session/load',
        this.opts.mcpServers ?? [],
        this.initialized.agentCapabilities,
        this.initialized.agentInfo?.name ?? 'the agent',
      );
    return this.request('session/load', async (proc) => {
      this.sessionId = sessionId;
      return this.guard(
        proc,
        proc.connection.agent.request('session/load', {
          sessionId,
          cwd: this.cwdOf(sessionId),
          mcpServers: this.opts.mcpServers ?? [],
        }),
      );
    });
  }

  /** session/list: one page (pass the previous page's `nextCursor` for the next). */
  async listSessions(params: Partial<acp.ListSessionsRequest> = {}): Promise<acp.ListSessionsResponse> {
    return this.request('session/list', (proc) =>
      this.guard(proc, this.agentOf(proc).request('session/list', params)),
    );
  }

  /**
   * session/resume: continue a persisted session without its history being replayed; on ACP v2,
   * `{ replayFrom: { type: 'start' } }` replays it from the start (v2's stand-in for session/load).
   */
  async resumeSession(
    sessionId = this.sessionId,
    options: { replayFrom?: { type: 'start' } } = {},
  ): Promise<acp.ResumeSessionResponse> {
    if (!sessionId) throw new Error('resumeSession: no session id (pass one, e.g. from listSessions)');
    return this.request('session/resume', async (proc) => {
      this.sessionId = sessionId;
      return this.guard(
        proc,
        this.agentOf(proc).request('session/resume', {
          sessionId,
          cwd: this.cwdOf(sessionId),
          ...(options.replayFrom ? { replayFrom: options.replayFrom } : {}),
        } as acp.ResumeSessionRequest),
      );
    });
  }

  /** session/close of the current (or the given) session. */
  async closeSession(sessionId = this.sessionId): Promise<acp.CloseSessionResponse> {
    const id = this.requireSession('closeSession', sessionId);
    return this.request('session/close', (proc) =>
      this.guard(proc, this.agentOf(proc).request('session/close', { sessionId: id })),
    );
  }

  /** session/delete of the current (or the given) session. */
  async deleteSession(sessionId = this.sessionId): Promise<acp.DeleteSessionResponse> {
    const id = this.requireSession('deleteSession', sessionId);
    return this.request('session/delete', (proc) =>
      this.guard(proc, this.agentOf(proc).request('session/delete', { sessionId: id })),
    );
  }

  /** session/set_mode of the current (or the given) session. */
  async setMode(modeId: string, sessionId = this.sessionId): Promise<acp.SetSessionModeResponse> {
    const id = this.requireSession('setMode', sessionId);
    return this.request(`session/set_mode ${modeId}`, (proc) =>
      this.guard(proc, proc.connection.agent.request('session/set_mode', { sessionId: id, modeId })),
    );
  }

  /** session/set_config_option of the current (or the given) session. */
  async setConfigOption(
    configId: string,
    value: string,
    sessionId = this.sessionId,
  ): Promise<acp.SetSessionConfigOptionResponse> {
    const id = this.requireSession('setConfigOption', sessionId);
    return this.request(`session/set_config_option ${configId}=${value}`, (proc) =>
      this.guard(
        proc,
        this.agentOf(proc).request('session/set_config_option', { sessionId: id, configId, value }),
      ),
    );
  }

  /**
   * Sends a prompt (text, or any content blocks) and waits for the turn to end. With a `cancel` point the
   * client sends session/cancel when the turn reaches it; with a `kill` point it SIGKILLs the agent there and
   * resolves with a {@link KilledTurn} (a kill point the turn never reached is a problem).
   */
  prompt(
    content: string | acp.ContentBlock[],
    options?: PromptOptions & { kill?: undefined },
  ): Promise<PromptResult>;
  prompt(content: string | acp.ContentBlock[], options: PromptOptions): Promise<PromptResult | KilledTurn>;
  async prompt(
    content: string | acp.ContentBlock[],
    options: PromptOptions = {},
  ): Promise<PromptResult | KilledTurn> {
    const blocks: acp.ContentBlock[] =
      typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    const sessionId = options.sessionId ?? this.requireSession('prompt');
    const quoted =
      typeof content === 'string'
        ? JSON.stringify(content.length > 50 ? `${content.slice(0, 47)}...` : content)
        : `[${blocks.map((b) => b.type).join(', ')}]`;
    let sent!: () => void;
    this.promptSent = new Promise<void>((r) => {
      sent = r;
    });
    this.promptsSent++;
    return this.request(`session/prompt ${quoted}`, (proc) =>
      this.turnOf(proc, { ...options, sessionId }, blocks, sent),
    );
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
   * With `count`, the count-th of the turn in flight (those it had included), e.g. the second message chunk
   * of a stream that stops after two, so a cancel cannot race it.
   */
  waitForUpdate<K extends acp.SessionUpdate['sessionUpdate']>(
    kind: K,
    opts: { count?: number } = {},
  ): Promise<Extract<acp.SessionUpdate, { sessionUpdate: K }>> {
    type U = Extract<acp.SessionUpdate, { sessionUpdate: K }>;
    const count = opts.count ?? 1;
    if (!Number.isInteger(count) || count < 1)
      throw new Error(`waitForUpdate('${kind}', { count: ${count} }): count is a whole number from 1`);
    const inTurn = () => (this.turn?.updates ?? []).filter((u) => u.sessionUpdate === kind);
    const had = inTurn()[count - 1];
    if (had) return Promise.resolve(had as U);
    let fresh = 0;
    const timeoutMs = this.opts.requestTimeoutMs ?? 60_000;
    return this.stepRunner(`wait for ${kind}`, async () => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = { kind, resolve: (_: acp.SessionUpdate) => {} };
      try {
        const update = new Promise<U>((resolve, reject) => {
          waiter.resolve = (u) => {
            fresh++;
            if ((this.turn ? inTurn().length : fresh) >= count) resolve(u as U);
          };
          this.waiters.add(waiter);
          timer = setTimeout(
            () =>
              reject(
                new Error(
                  count === 1
                    ? `no ${kind} update from the agent within ${timeoutMs} ms`
                    : `fewer than ${count} ${kind} updates from the agent within ${timeoutMs} ms`,
                ),
              ),
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
    if (this.current) await this.agentOf(this.current).notify('session/cancel', { sessionId });
  }

  /** Closes stdin, waits for a graceful exit (killing the group after the grace period), starts a new process. */
  async restart(): Promise<void> {
    await this.reported('restart agent process', () => this.closeCurrent());
    await this.start();
  }

  /** Closes stdin and waits for the agent to exit; true when it exited within the grace period. */
  async close(): Promise<boolean> {
    await this.awaitLateNotifications();
    if (this.negotiation?.version === 2) this.problems.push(...v2WireProblems(this.stdout));
    return this.reported('close stdin and await exit', () => this.closeCurrent());
  }

  /**
   * Notifications the agent sends after its last response are part of the run, and so are the model calls it
   * makes after the turn. A run compared with a stdout snapshot (not recording, not rewriting it) first waits for
   * the profile's anytime updates as many times as the snapshot holds them (they may come after the last response,
   * in any order), until the process exits or ANYTIME_DEADLINE_MS pass (then the comparison names what is
   * missing). Then, as every run does, for the profile's `settleMs` of quiet stdout, except that a compared run
   * stops waiting as soon as everything the recording holds is in: as many lines as the snapshot and every
   * recorded model call requested (decision 0043).
   */
  async awaitLateNotifications(): Promise<void> {
    const s = this.opts.snapshot;
    const running = this.current;
    if (!running) return;
    const settleMs = s?.profile.settleMs ?? 0;
    const expected =
      s?.expectedStdout && !s.recording && !s.updating
        ? await readFile(s.expectedStdout, 'utf8').catch(() => undefined)
        : undefined;
    if (expected === undefined) return settleStdout(this, settleMs);
    const lines = expected.split('\n').filter((l) => l !== '');
    const kinds = s?.profile.normalize?.anytimeUpdates ?? [];
    const want = anytimeCounts(lines, kinds);
    const anytimeArrived = () => {
      const seen = anytimeCounts(
        this.stdout.map((l) => l.text),
        kinds,
      );
      return [...want].every(([kind, n]) => (seen.get(kind) ?? 0) >= n);
    };
    // The snapshot's lines are the stdout's, one for one (normalized); a model call writes nothing to stdout.
    const complete = () => this.stdout.length >= lines.length && !s?.awaitingModelCalls?.();
    if (!anytimeArrived()) {
      let check!: () => void;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          check = () => anytimeArrived() && resolve();
          this.lineListeners.add(check);
          timer = setTimeout(resolve, this.opts.anytimeDeadlineMs ?? ANYTIME_DEADLINE_MS);
        }),
        running.exited,
      ]);
      this.lineListeners.delete(check);
      clearTimeout(timer);
    }
    await settleStdout(this, settleMs, complete);
  }

  /** SIGKILLs the process group of every process of the client, now. */
  kill(): void {
    for (const p of this.processes) p.kill();
  }

  /**
   * Kills every process of the client and waits for them to exit (the fixture's teardown), then the
   * terminals the agent left: one line for each (see ClientTerminals.dispose), [] when it left none.
   */
  async dispose(): Promise<LeftTerminal[]> {
    this.kill();
    await Promise.all(this.processes.map((p) => p.exited));
    await this.mcpServers?.dispose();
    return (await this.terminals?.dispose()) ?? [];
  }

  /** Whether an agent process is running (a closed client has nothing more to say). */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** The agent process requests go to (undefined before the start and after close). */
  get currentProcess(): AgentProcess | undefined {
    return this.current;
  }

  /** The stderr of every process, for failure reports. */
  get stderr(): string[] {
    return this.processes.map((p) => p.stderr);
  }

  /** One prompt turn on `proc`: its points watched, its response awaited (or the planned death). */
  private async turnOf(
    proc: AgentProcess,
    points: PromptOptions & { sessionId: string },
    blocks: acp.ContentBlock[],
    sent: () => void,
  ): Promise<PromptResult | KilledTurn> {
    const turn: Turn = { sessionId: points.sessionId, updates: [] };
    const killed = new Promise<'killed'>((resolve) => {
      if (points.kill)
        turn.kill = new PointWatcher(points.kill, () => {
          this.killedAtPoint.add(proc);
          proc.kill();
          resolve('killed');
        });
    });
    if (points.cancel)
      turn.cancel = new PointWatcher(points.cancel, () => {
        void this.agentOf(proc)
          .notify('session/cancel', { sessionId: turn.sessionId })
          .catch(() => {});
      });
    // ACP v2: the response only acknowledges the prompt; the idle state update ends the turn.
    const idle = proc.connectionV2
      ? new Promise<acp.PromptResponse>((resolve) => {
          turn.idle = (stopReason) => resolve({ stopReason: stopReason as acp.StopReason });
        })
      : undefined;
    this.turn = turn;
    try {
      const ack = this.agentOf(proc).request('session/prompt', {
        sessionId: turn.sessionId,
        prompt: blocks,
      });
      const pending = idle ? ack.then(() => idle) : ack;
      pending.catch(() => {});
      // Queued: the SDK writes in order, so a cancel sent from now on follows the prompt on the wire.
      sent();
      turn.kill?.prompted();
      turn.cancel?.prompted();
      const r = await Promise.race([this.guard(proc, pending), killed]);
      const text = idle
        ? v2TurnText(turn.updates as unknown as Array<Record<string, unknown>>)
        : turn.updates
            .map((u) =>
              u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '',
            )
            .join('');
      if (r === 'killed') {
        await proc.exited;
        return { killed: true, updates: turn.updates, text };
      }
      this.exchange.note(`→ ${r.stopReason}`);
      if (points.kill)
        this.problems.push(
          `${this.label()}: the kill point (${describePoint(points.kill)}) was never reached: the prompt ended with stop reason "${r.stopReason}" first`,
        );
      return { stopReason: r.stopReason, updates: turn.updates, text };
    } finally {
      turn.cancel?.dispose();
      turn.kill?.dispose();
      this.turn = undefined;
    }
  }

  private onUpdate(params: acp.SessionNotification): void {
    if (params.sessionId === this.sessionId || this.sessions.some((s) => s.sessionId === params.sessionId))
      this.exchange.update(params.update);
    const turn = this.turn;
    if (turn?.sessionId === params.sessionId) {
      turn.updates.push(params.update);
      const stopReason = idleStopReason(params.update as { sessionUpdate: string });
      if (stopReason !== undefined) turn.idle?.(stopReason);
      turn.kill?.update(params.update.sessionUpdate);
      turn.cancel?.update(params.update.sessionUpdate);
    }
    if (params.sessionId !== this.sessionId) return;
    for (const w of [...this.waiters]) if (w.kind === params.update.sessionUpdate) w.resolve(params.update);
  }

  private onPermissionRequest(
    params: acp.RequestPermissionRequest,
  ): acp.RequestPermissionResponse | Promise<never> {
    const turn = this.turn;
    // Never answered: the agent is being killed while it waits for the user.
    if (turn?.kill?.permissionRequest()) {
      this.exchange.note(`${askedLine(params)} (unanswered: the kill point)`);
      return new Promise<never>(() => {});
    }
    if (turn?.cancel?.permissionRequest()) {
      this.exchange.note(`${askedLine(params)} → cancelled (the cancel point)`);
      return { outcome: { outcome: 'cancelled' } };
    }
    return answerPermission(
      this.permissions,
      params,
      this.permissionsAsked++,
      (line) => this.exchange.note(line),
      this.problems,
    );
  }

  /** Closes the current process (stdin, then the exit policy); false, and a problem, when it had to be killed. */
  private async closeCurrent(): Promise<boolean> {
    const p = this.current;
    if (!p) return true;
    this.current = undefined;
    // Killed at a kill point: already gone, on purpose.
    if (this.killedAtPoint.has(p)) return true;
    const exit = this.opts.exit ?? 'stdin';
    const graceMs = this.graceMs();
    const graceful = await p.close(graceMs, exit);
    if (!graceful)
      this.problems.push(
        `${this.opts.name ? `${this.opts.name}: ` : ''}agent process ${p.index + 1} did not exit within ${graceMs} ms after ${exit === 'signal' ? 'stdin closed and SIGTERM' : 'stdin closed'}; its process group was killed${exit === 'stdin' ? ' (an agent that never exits on stdin close needs `exit: "signal"` in its profile)' : ''}`,
      );
    return graceful;
  }

  /** The exit grace period: the configured one, cut to what is left of the deadline. */
  private graceMs(): number {
    const grace = this.opts.exitGraceMs ?? 5000;
    const left = this.opts.deadline?.remainingMs;
    return left === undefined ? grace : Math.max(100, Math.min(grace, left));
  }

  /** The cwd a session was created in by this client, else the cwd of a new session. */
  private cwdOf(sessionId: string): string {
    return this.sessions.find((s) => s.sessionId === sessionId)?.cwd ?? this.opts.sessionCwd ?? this.opts.cwd;
  }

  private requireSession(what: string, sessionId = this.sessionId): string {
    if (!sessionId)
      throw new Error(`${what}: no session yet (call acp.newSession() or acp.loadSession(id) first)`);
    return sessionId;
  }

  /** What problems recorded now are prefixed with: the open step's label. */
  private label(): string {
    return this.openStep()?.label ?? 'prompt';
  }

  /** Runs `body` as a step of its own, or as part of the step the caller opened. */
  private reported<T>(title: string, body: () => Promise<T>): Promise<T> {
    return this.openStep() ? body() : this.stepRunner(title, body);
  }

  /** Races a pending response with the agent's death, the run's deadline and the request's time limit. */
  private guard<T>(proc: AgentProcess, pending: Promise<T>): Promise<T> {
    const races: Promise<T>[] = [pending, proc.broken];
    if (this.opts.deadline) races.push(this.opts.deadline.expired);
    const limit = this.openStep()?.timedOut;
    if (limit) races.push(limit);
    return Promise.race(races);
  }

  /**
   * One request: inside a step the caller opened, part of it; else one exchange as one step (the request,
   * what the agent did meanwhile as nested steps, the answer) with its own time limit, its failure named.
   */
  private async request<T>(title: string, body: (proc: AgentProcess) => Promise<T>): Promise<T> {
    if (!this.current) await this.start();
    const proc = this.current!;
    if (this.openStep()) return body(proc);
    return this.step(title, async () => {
      const timeoutMs = this.opts.requestTimeoutMs ?? (this.opts.deadline ? undefined : 60_000);
      let timer: NodeJS.Timeout | undefined;
      const open = this.openStep()!;
      if (timeoutMs !== undefined) {
        open.timedOut = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${title}: no answer from the agent within ${timeoutMs} ms`)),
            timeoutMs,
          );
        });
        open.timedOut.catch(() => {});
      }
      try {
        return await body(proc);
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
      }
    });
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
 * With `done`, it also ends as soon as `done()` holds (checked every 20 ms).
 */
export async function settleStdout(
  acp: Pick<AcpClient, 'stdout'>,
  ms: number,
  done: () => boolean = () => false,
): Promise<void> {
  if (ms <= 0) return;
  let seen = acp.stdout.length;
  let quietSince = Date.now();
  while (!done()) {
    await new Promise((r) => setTimeout(r, 20));
    if (acp.stdout.length !== seen) {
      seen = acp.stdout.length;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= ms) return;
  }
}
