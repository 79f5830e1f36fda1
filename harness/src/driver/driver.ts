import { cutText } from '@acp-snapshot/core';
import * as acp from '@agentclientprotocol/sdk';
import { AgentProcess, AgentSpawnError, type StdoutLine, StdoutViolation } from '../process/agent-process.js';
import { processesInside, startedAndLingering } from '../process/orphans.js';
import type { ExitPolicy } from '../profile.js';
import type { PermissionAnswer, Scenario, Step } from '../scenario/input.js';
import { type PromptCapabilities, undeclaredBlock } from '../scenario/prompt-content.js';
import { serveClientFs } from './client-fs.js';
import { Exchange } from './exchange.js';
import { describePoint, PointWatcher } from './points.js';
import { runSessionRequest } from './session-requests.js';

export { type AgentEnvInput, agentEnv, agentPath } from '../process/agent-env.js';
export type { StdoutLine } from '../process/agent-process.js';

/**
 * Wraps one exchange for reporting (Playwright's `test.step` in specs). `at.step` is the 0-based index of the
 * scenario step it runs, for a step of the scenario itself (not for the spawn, the close or nested lines).
 */
export type StepRunner = <T>(title: string, body: () => Promise<T>, at?: { step: number }) => Promise<T>;

/** Everything observed while driving a scenario. */
export interface DriverResult {
  /** Raw stdout lines of every agent process, in order, exactly as written. */
  stdout: StdoutLine[];
  /** The lines the harness wrote to the agent processes' stdin, in order. */
  sent: StdoutLine[];
  /** Full stderr text of each agent process. */
  stderr: string[];
  /** The id of the scenario's session: the one session/new created that was not deleted. */
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
/**
 * Why a run could not finish: the agent could not start (`spawn`), wrote something that is not an ACP
 * line (`stdout-violation`), took too long (`timeout`), died (`crash`), answered a request with a
 * JSON-RPC error (`rpc-error`), or the scenario itself could not go on (`scenario`).
 */
export type DriverErrorKind = 'spawn' | 'stdout-violation' | 'timeout' | 'crash' | 'rpc-error' | 'scenario';

export class DriverError extends Error {
  override name = 'DriverError';
  /** The agent's persisted log as it was on disk after the failure (raw text; set by the run that harvested it). */
  rawLog?: string;
  constructor(
    message: string,
    readonly result: DriverResult,
    readonly kind: DriverErrorKind = 'scenario',
  ) {
    super(message);
  }
}

/** A run that took longer than its scenario's timeout. */
class ScenarioTimeout extends Error {
  override name = 'ScenarioTimeout';
}

/** Options for {@link driveScenario}. */
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
  /** How the agent is asked to exit (default `stdin`; see AgentProfile.exit). */
  exit?: ExitPolicy;
  /**
   * The test's directory tree: after a prompt with a cancel point, a process started inside it during
   * the turn that outlives the turn is a problem (a cancel must stop the turn's tools). Unset: not checked.
   */
  processRoot?: string;
}

/** How long a cancelled turn's processes may take to disappear after its response. */
const CANCELLED_TOOL_GRACE_MS = 2000;

const directStep: StepRunner = (_title, body) => body();

function describeStep(step: Step, index: number): string {
  switch (step.op) {
    case 'initialize':
      return 'initialize';
    case 'new_session':
      return `session/new${step.cwd ? ` (cwd ${step.cwd})` : ''}`;
    case 'load_session':
      return `session/load${sessionSuffix(step.session)}`;
    case 'resume_session':
      return `session/resume${sessionSuffix(step.session)}`;
    case 'list_sessions':
      return `session/list${step.cwd ? ` (cwd ${step.cwd})` : ''}`;
    case 'close_session':
      return `session/close${sessionSuffix(step.session)}`;
    case 'delete_session':
      return `session/delete${sessionSuffix(step.session)}`;
    case 'set_mode':
      return `session/set_mode ${step.modeId}${sessionSuffix(step.session)}`;
    case 'set_config_option':
      return `session/set_config_option ${step.configId}=${step.value}${sessionSuffix(step.session)}`;
    case 'restart':
      return 'restart agent process';
    case 'prompt': {
      const text = step.text ?? '';
      const what =
        step.content !== undefined
          ? `[${step.content.map((b) => b.type).join(', ')}]`
          : JSON.stringify(text.length > 50 ? `${cutText(text, 47)}...` : text);
      const cancel = step.cancel ? ` (cancel ${JSON.stringify(step.cancel)})` : '';
      const kill = step.kill ? ` (kill ${JSON.stringify(step.kill)})` : '';
      return `session/prompt ${what}${cancel}${kill}${sessionSuffix(step.session)}`;
    }
    default:
      return `step ${index}`;
  }
}

/** Names the session a step addresses, when it is not the first. */
function sessionSuffix(session: number | undefined): string {
  return session && session > 1 ? ` [session ${session}]` : '';
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

type PromptStep = Extract<Step, { op: 'prompt' }>;

/** The points being watched during the prompt turn in flight. */
interface PromptWatch {
  /** The session the prompt is in. */
  sessionId: string;
  cancel?: PointWatcher;
  kill?: PointWatcher;
}

/** The ACP content blocks a prompt step sends. */
function promptBlocks(s: PromptStep): acp.ContentBlock[] {
  return (s.content as acp.ContentBlock[] | undefined) ?? [{ type: 'text', text: s.text ?? '' }];
}

/**
 * Runs the scenario's steps against the agent command: a fresh process at the start and after each
 * `restart`, permission and fs requests answered as the scenario says, stdin closed and a graceful
 * exit awaited at the end. Throws {@link DriverError} (with everything observed) when it cannot finish.
 */
export async function driveScenario(opts: DriverOptions): Promise<DriverResult> {
  const step = opts.step ?? directStep;
  const { scenario } = opts;
  const lines: StdoutLine[] = [];
  const sent: StdoutLine[] = [];
  const processes: AgentProcess[] = [];
  const problems: string[] = [];
  /** The ids session/new returned, in order: session N of the scenario is `sessionIds[N - 1]`. */
  const sessionIds: string[] = [];
  /** The cwd each session was created in, by the same index. */
  const sessionCwds: string[] = [];
  /** Scenario session numbers deleted with delete_session. */
  const deleted = new Set<number>();
  const ours = (id: string) => sessionIds.includes(id);
  let agentInfo: DriverResult['agentInfo'];
  let permissionIndex = 0;
  let watch: PromptWatch | undefined;
  /** What the agent did during the current step, reported as its nested steps when it ends. */
  const exchange = new Exchange();
  let current: AgentProcess | undefined;

  const result = (): DriverResult => {
    const r: DriverResult = {
      stdout: lines,
      sent,
      stderr: processes.map((p) => p.stderr),
      exits: processes.map((p) => p.exit),
      processMs: processes.map((p) => p.lifetimeMs),
      problems,
    };
    const kept = sessionIds.find((_, i) => !deleted.has(i + 1));
    if (kept !== undefined) r.sessionId = kept;
    if (agentInfo) r.agentInfo = agentInfo;
    return r;
  };

  const sendCancel = () => {
    if (!watch || !current) return;
    void current.connection.agent.notify('session/cancel', { sessionId: watch.sessionId }).catch(() => {});
  };

  const app = acp
    .client({ name: 'acp-snapshot' })
    .onNotification('session/update', ({ params }) => {
      if (ours(params.sessionId)) exchange.update(params.update);
      const w = watch;
      if (!w || params.sessionId !== w.sessionId) return;
      w.kill?.update(params.update.sessionUpdate);
      w.cancel?.update(params.update.sessionUpdate);
    })
    .onRequest('session/request_permission', ({ params }) => {
      const w = watch;
      const asked = `permission request: ${params.toolCall.title ?? params.toolCall.toolCallId}`;
      // Never answered: the agent is being killed while it waits for the user.
      if (w?.kill?.permissionRequest()) {
        exchange.note(`${asked} (unanswered: the kill point)`);
        return new Promise<never>(() => {});
      }
      if (w?.cancel?.permissionRequest()) {
        exchange.note(`${asked} → cancelled (the cancel point)`);
        return { outcome: { outcome: 'cancelled' } };
      }
      const n = permissionIndex++;
      const answer = scenario.permissions[n];
      exchange.note(`${asked} → ${answer ?? 'no answer in input.json'}`);
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
  serveClientFs(app, opts.fsRoot, scenario.clientCapabilities.fs, (line) => exchange.note(line));

  /** Processes the scenario killed at a kill point: gone on purpose, so `restart` does not close them. */
  const killedAtPoint = new Set<AgentProcess>();
  /** What the current process's initialize result declared about prompt content. */
  let promptCaps: PromptCapabilities | undefined;

  const start = async () => {
    const p = new AgentProcess(processes.length, opts, lines, app, sent);
    processes.push(p);
    await p.spawned(opts.command);
    p.connect();
    current = p;
    promptCaps = undefined;
    return p;
  };

  /** One prompt step: its points watched, its response (or its planned death) checked. */
  const prompt = async (s: PromptStep): Promise<void> => {
    const proc = current!;
    const undeclared = s.content && undeclaredBlock(s.content, promptCaps);
    if (undeclared) {
      throw new Error(
        `${opts.name}: ${stepTitle}: input.json's prompt ${undeclared}; remove the block, or run an agent that declares it`,
      );
    }
    const w: PromptWatch = { sessionId: idOf(s.session) };
    let killed!: () => void;
    const killedNow = new Promise<'killed'>((res) => {
      killed = () => res('killed');
    });
    if (s.cancel) w.cancel = new PointWatcher(s.cancel, sendCancel);
    if (s.kill) {
      w.kill = new PointWatcher(s.kill, () => {
        killedAtPoint.add(proc);
        proc.kill();
        killed();
      });
    }
    const before =
      s.cancel && opts.processRoot
        ? new Set((await processesInside(opts.processRoot)).map((p) => p.pid))
        : undefined;
    watch = w;
    try {
      const pending = proc.connection.agent.request('session/prompt', {
        sessionId: w.sessionId,
        prompt: promptBlocks(s),
      });
      pending.catch(() => {});
      // After the request is queued: the SDK writes messages in order, so a cancel follows the prompt.
      w.kill?.prompted();
      w.cancel?.prompted();
      if (w.kill) {
        const r = await Promise.race([guard(pending), killedNow]);
        if (r === 'killed') {
          await proc.exited;
          return;
        }
        problems.push(
          `${stepTitle}: the kill point (${describePoint(s.kill!)}) was never reached: the prompt ended with stop reason "${r.stopReason}" first`,
        );
        return;
      }
      await expectResponse(s, pending);
      if (before && opts.processRoot) {
        const left = await startedAndLingering(opts.processRoot, before, CANCELLED_TOOL_GRACE_MS);
        if (left.length > 0) {
          problems.push(
            `${stepTitle}: ${left.length} process(es) the cancelled turn started were still running ${CANCELLED_TOOL_GRACE_MS} ms after its response (a cancel must stop the turn's tools):\n${left.map((p) => `  pid ${p.pid}: ${p.command}`).join('\n')}`,
          );
        }
      }
    } finally {
      w.cancel?.dispose();
      w.kill?.dispose();
      watch = undefined;
    }
  };

  /** Checks a prompt's response (or JSON-RPC error) against the step's expectation. */
  const expectResponse = async (s: PromptStep, pending: Promise<acp.PromptResponse>): Promise<void> => {
    try {
      const r = await guard(pending);
      exchange.note(`→ ${r.stopReason}`);
      if (s.expectError) {
        problems.push(
          `${stepTitle}: expected a JSON-RPC error containing ${JSON.stringify(s.expectError)}, got stop reason "${r.stopReason}"`,
        );
      } else if (r.stopReason !== s.expectStopReason) {
        problems.push(`${stepTitle}: expected stop reason "${s.expectStopReason}", got "${r.stopReason}"`);
      }
    } catch (e) {
      if (!(e instanceof acp.RequestError)) throw e;
      exchange.note(`→ JSON-RPC error ${e.code}: ${e.message.slice(0, 80)}`);
      if (!s.expectError || !e.message.includes(s.expectError)) {
        problems.push(`${stepTitle}: the agent answered with JSON-RPC error ${e.code}: ${e.message}`);
      }
    }
  };

  const deadline = Date.now() + scenario.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let stepTitle = 'start';
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      for (const p of processes) p.kill();
      reject(
        new ScenarioTimeout(
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
      await step(
        describeStep(s, i),
        async () => {
          exchange.reset();
          try {
            await runStep(s);
          } finally {
            // What happened inside the exchange, in order, as nested steps a reviewer can read.
            for (const line of exchange.take()) await step(line, async () => {});
          }
        },
        { step: i },
      );
    }
    await step('close stdin and await exit', async () => {
      const graceful = await current!.close(graceMs(), opts.exit);
      if (!graceful)
        problems.push(
          `${opts.name}: the agent did not exit within the grace period after stdin closed; its process group was killed`,
        );
    });
  } catch (e) {
    throw await failure(e);
  } finally {
    clearTimeout(timer);
  }
  return result();

  async function runStep(s: Step): Promise<void> {
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
        promptCaps = r.agentCapabilities?.promptCapabilities ?? undefined;
        return;
      }
      case 'new_session': {
        const cwd = s.cwd ?? opts.sessionCwd;
        const r = await guard(agent.request('session/new', { cwd, mcpServers: [] }));
        sessionIds.push(r.sessionId);
        sessionCwds.push(cwd);
        return;
      }
      case 'load_session':
        await guard(
          agent.request('session/load', {
            sessionId: idOf(s.session),
            cwd: cwdOf(s.session),
            mcpServers: [],
          }),
        );
        return;
      case 'resume_session':
      case 'list_sessions':
      case 'close_session':
      case 'delete_session':
      case 'set_mode':
      case 'set_config_option':
        await runSessionRequest(s, {
          agent,
          guard,
          problems,
          note: (line) => exchange.note(line),
          title: stepTitle,
          sessionId: idOf,
          sessionCwd: cwdOf,
        });
        if (s.op === 'delete_session') deleted.add(s.session ?? 1);
        return;
      case 'restart': {
        // A process killed at a kill point is already gone: no graceful close of the dead one.
        const graceful = killedAtPoint.has(current!) || (await current!.close(graceMs(), opts.exit));
        if (!graceful)
          problems.push(
            `${opts.name}: agent process ${current!.index + 1} did not exit within the grace period after stdin closed; its process group was killed`,
          );
        await start();
        return;
      }
      case 'prompt':
        return prompt(s);
    }
  }

  /** The id of scenario session `n` (default 1), which an earlier new_session returned. */
  function idOf(n = 1): string {
    const id = sessionIds[n - 1];
    if (id === undefined)
      throw new Error(
        `${opts.name}: ${stepTitle}: session ${n} was never created (no new_session answered for it)`,
      );
    return id;
  }

  /** The cwd scenario session `n` (default 1) was created in. */
  function cwdOf(n = 1): string {
    idOf(n);
    return sessionCwds[n - 1]!;
  }

  /** The DriverError a failed run ends in: the crash, the violation or the error, with everything observed. */
  async function failure(e: unknown): Promise<DriverError> {
    // The SDK reports a dead peer as a closed connection before the exit event: give the exit a moment
    // to arrive so the failure names the crash (exit code, stderr) rather than the closed pipe.
    const answered = e instanceof acp.RequestError;
    // A broken stdout line is the cause even when the agent exits right after writing it.
    const violation = e instanceof StdoutViolation;
    const timedOutNow = e instanceof ScenarioTimeout;
    if (current && !answered && !violation && !timedOutNow) await current.exitsWithin(2000);
    const crash = violation ? undefined : processes.find((p) => p.crashed);
    for (const p of processes) p.kill();
    await Promise.all(processes.map((p) => p.exited));
    if (crash) return new DriverError(crash.exitMessage(), result(), 'crash');
    if (e instanceof acp.RequestError)
      return new DriverError(
        `${opts.name}: ${stepTitle}: the agent answered with JSON-RPC error ${e.code}: ${e.message}`,
        result(),
        'rpc-error',
      );
    const kind: DriverErrorKind = violation
      ? 'stdout-violation'
      : timedOutNow
        ? 'timeout'
        : e instanceof AgentSpawnError
          ? 'spawn'
          : 'scenario';
    return new DriverError((e as Error).message, result(), kind);
  }
}
