/**
 * The scenario driver: a step interpreter over {@link AcpClient}. Each input.json step becomes one call of
 * the client (or a few: a list follows its cursor), run as one reported step; the driver adds only what a
 * scenario means beyond the calls: numbered sessions, the expected stop reasons and errors, the processes a
 * cancelled turn must not leave, the run's deadline and what a failure was.
 */
import { cutText } from '@acp-snapshot/core';
import * as acp from '@agentclientprotocol/sdk';
import { AgentSpawnError, type StdoutLine, StdoutViolation } from '../process/agent-process.js';
import { processesInside, startedAndLingering } from '../process/orphans.js';
import type { ExitPolicy } from '../profile.js';
import type { Scenario, Step } from '../scenario/input.js';
import { type PromptCapabilities, undeclaredBlock } from '../scenario/prompt-content.js';
import { AcpClient, type PromptResult, type StepRunner } from './acp-client.js';
import { Deadline } from './deadline.js';
import type { PermissionSource } from './permissions.js';
import { runSessionRequest } from './session-requests.js';

export { type AgentEnvInput, agentEnv, agentPath } from '../process/agent-env.js';
export type { StdoutLine } from '../process/agent-process.js';
export type { StepRunner } from './acp-client.js';

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
    /** The step the agent answered with an error (`step 3 (session/prompt "go")`), for a kind `rpc-error`. */
    readonly step?: string,
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

type PromptStep = Extract<Step, { op: 'prompt' }>;

/** The ACP content blocks a prompt step sends. */
function promptBlocks(s: PromptStep): acp.ContentBlock[] {
  return (s.content as acp.ContentBlock[] | undefined) ?? [{ type: 'text', text: s.text ?? '' }];
}

/** A scenario's `permissions` list as the client's answers, its problems naming input.json. */
function scenarioPermissions(name: string, scenario: Scenario): PermissionSource {
  return {
    next: (_request, n) => scenario.permissions[n],
    missing: (request, n) => ({
      note: 'no answer in input.json',
      problem: `${name}: the agent asked permission #${n + 1} (tool call ${request.toolCall.toolCallId}) but input.json "permissions" has only ${scenario.permissions.length} answer(s); add one ("allow", "reject" or "cancel")`,
    }),
    label: (_request, n) => `${name}: permission #${n + 1}`,
  };
}

/**
 * Runs the scenario's steps against the agent command: a fresh process at the start and after each
 * `restart`, permission and fs requests answered as the scenario says, stdin closed and a graceful
 * exit awaited at the end. Throws {@link DriverError} (with everything observed) when it cannot finish.
 */
export async function driveScenario(opts: DriverOptions): Promise<DriverResult> {
  return new ScenarioRun(opts).run();
}

/** One run of a scenario: the client it drives and what the scenario's steps mean on top of it. */
class ScenarioRun {
  private readonly client: AcpClient;
  private readonly deadline: Deadline;
  /** The step being run, for messages: `step 3 (session/prompt "go")`. */
  private stepTitle = 'start';
  /** Scenario session numbers deleted with delete_session. */
  private readonly deleted = new Set<number>();
  private agentInfo: DriverResult['agentInfo'];
  /** What the current process's initialize result declared about prompt content. */
  private promptCaps: PromptCapabilities | undefined;

  constructor(private readonly opts: DriverOptions) {
    const { scenario } = opts;
    this.deadline = new Deadline(scenario.timeoutMs, () => {
      this.client.kill();
      return new ScenarioTimeout(
        `${opts.name}: timed out after ${scenario.timeoutMs} ms during ${this.stepTitle}; the agent's process group was killed (raise "timeoutMs" in input.json if the scenario is legitimately slow)`,
      );
    });
    this.client = new AcpClient({
      command: opts.command,
      env: opts.env,
      cwd: opts.processCwd,
      sessionCwd: opts.sessionCwd,
      fsRoot: opts.fsRoot,
      name: opts.name,
      clientCapabilities: scenario.clientCapabilities,
      permissions: scenarioPermissions(opts.name, scenario),
      deadline: this.deadline,
      ...(opts.exitGraceMs !== undefined ? { exitGraceMs: opts.exitGraceMs } : {}),
      ...(opts.exit ? { exit: opts.exit } : {}),
      ...(opts.step ? { step: opts.step } : {}),
    });
  }

  async run(): Promise<DriverResult> {
    try {
      await this.client.start();
      for (const [i, s] of this.opts.scenario.steps.entries()) {
        this.stepTitle = `step ${i + 1} (${describeStep(s, i)})`;
        await this.client.step(describeStep(s, i), () => this.runStep(s), {
          at: { step: i },
          label: this.stepTitle,
        });
      }
      await this.client.close();
      // Client terminals the agent left: killed and released, each a problem of the run.
      for (const left of (await this.client.terminals?.dispose()) ?? [])
        this.client.problems.push(left.message);
    } catch (e) {
      throw await this.failure(e);
    } finally {
      this.deadline.clear();
    }
    return this.result();
  }

  private async runStep(s: Step): Promise<void> {
    const { client } = this;
    switch (s.op) {
      case 'initialize': {
        const r = await client.initialize({ protocolVersion: s.protocolVersion });
        if (r.agentInfo) this.agentInfo = { name: r.agentInfo.name, version: r.agentInfo.version };
        this.promptCaps = r.agentCapabilities?.promptCapabilities ?? undefined;
        return;
      }
      case 'new_session':
        await client.newSession(s.cwd ? { cwd: s.cwd } : {});
        return;
      case 'load_session':
        await client.loadSession(this.idOf(s.session));
        return;
      case 'resume_session':
      case 'list_sessions':
      case 'close_session':
      case 'delete_session':
      case 'set_mode':
      case 'set_config_option':
        await runSessionRequest(s, {
          client,
          problems: client.problems,
          title: this.stepTitle,
          sessionId: (n) => this.idOf(n),
        });
        if (s.op === 'delete_session') this.deleted.add(s.session ?? 1);
        return;
      case 'restart':
        await client.restart();
        this.promptCaps = undefined;
        return;
      case 'prompt':
        return this.prompt(s);
    }
  }

  /** One prompt step: sent with its points, its response (or its planned death) checked. */
  private async prompt(s: PromptStep): Promise<void> {
    const undeclared = s.content && undeclaredBlock(s.content, this.promptCaps);
    if (undeclared) {
      throw new Error(
        `${this.opts.name}: ${this.stepTitle}: input.json's prompt ${undeclared}; remove the block, or run an agent that declares it`,
      );
    }
    const root = s.cancel ? this.opts.processRoot : undefined;
    const before = root ? new Set((await processesInside(root)).map((p) => p.pid)) : undefined;
    const blocks = promptBlocks(s);
    const sessionId = this.idOf(s.session);
    const cancel = s.cancel ? { cancel: s.cancel } : {};
    // A kill point's turn has no response to check: the client says when the point was never reached.
    if (s.kill) {
      await this.client.prompt(blocks, { sessionId, kill: s.kill, ...cancel });
      return;
    }
    await this.expectResponse(s, this.client.prompt(blocks, { sessionId, ...cancel }));
    if (root && before) await this.expectToolsStopped(root, before);
  }

  /** Checks a prompt's response (or JSON-RPC error) against the step's expectation. */
  private async expectResponse(s: PromptStep, sent: Promise<PromptResult>): Promise<void> {
    const problems = this.client.problems;
    try {
      const r = await sent;
      if (s.expectError) {
        problems.push(
          `${this.stepTitle}: expected a JSON-RPC error containing ${JSON.stringify(s.expectError)}, got stop reason "${r.stopReason}"`,
        );
      } else if (r.stopReason !== s.expectStopReason) {
        problems.push(
          `${this.stepTitle}: expected stop reason "${s.expectStopReason}", got "${r.stopReason}"`,
        );
      }
    } catch (e) {
      if (!(e instanceof acp.RequestError)) throw e;
      this.client.note(`→ JSON-RPC error ${e.code}: ${e.message.slice(0, 80)}`);
      if (!s.expectError || !e.message.includes(s.expectError)) {
        problems.push(`${this.stepTitle}: the agent answered with JSON-RPC error ${e.code}: ${e.message}`);
      }
    }
  }

  /** After a cancelled turn: a process it started inside `root` that outlives it is a problem. */
  private async expectToolsStopped(root: string, before: Set<number>): Promise<void> {
    const left = await startedAndLingering(root, before, CANCELLED_TOOL_GRACE_MS);
    if (left.length === 0) return;
    this.client.problems.push(
      `${this.stepTitle}: ${left.length} process(es) the cancelled turn started were still running ${CANCELLED_TOOL_GRACE_MS} ms after its response (a cancel must stop the turn's tools):\n${left.map((p) => `  pid ${p.pid}: ${p.command}`).join('\n')}`,
    );
  }

  /** The id of scenario session `n` (default 1), which an earlier new_session returned. */
  private idOf(n = 1): string {
    const id = this.client.sessions[n - 1]?.sessionId;
    if (id === undefined)
      throw new Error(
        `${this.opts.name}: ${this.stepTitle}: session ${n} was never created (no new_session answered for it)`,
      );
    return id;
  }

  private result(): DriverResult {
    const { client } = this;
    const r: DriverResult = {
      stdout: client.stdout,
      sent: client.sent,
      stderr: client.stderr,
      exits: client.processes.map((p) => p.exit),
      processMs: client.processes.map((p) => p.lifetimeMs),
      problems: client.problems,
    };
    const kept = client.sessions.find((_, i) => !this.deleted.has(i + 1));
    if (kept !== undefined) r.sessionId = kept.sessionId;
    if (this.agentInfo) r.agentInfo = this.agentInfo;
    return r;
  }

  /** The DriverError a failed run ends in: the crash, the violation or the error, with everything observed. */
  private async failure(e: unknown): Promise<DriverError> {
    const { client } = this;
    // The SDK reports a dead peer as a closed connection before the exit event: give the exit a moment
    // to arrive so the failure names the crash (exit code, stderr) rather than the closed pipe.
    const answered = e instanceof acp.RequestError;
    // A broken stdout line is the cause even when the agent exits right after writing it.
    const violation = e instanceof StdoutViolation;
    const timedOut = e instanceof ScenarioTimeout;
    const current = client.currentProcess;
    if (current && !answered && !violation && !timedOut) await current.exitsWithin(2000);
    const crash = violation ? undefined : client.processes.find((p) => p.crashed);
    await client.dispose();
    if (crash) return new DriverError(crash.exitMessage(), this.result(), 'crash');
    if (e instanceof acp.RequestError)
      return new DriverError(
        `${this.opts.name}: ${this.stepTitle}: the agent answered with JSON-RPC error ${e.code}: ${e.message}`,
        this.result(),
        'rpc-error',
        this.stepTitle,
      );
    const kind: DriverErrorKind = violation
      ? 'stdout-violation'
      : timedOut
        ? 'timeout'
        : e instanceof AgentSpawnError
          ? 'spawn'
          : 'scenario';
    return new DriverError((e as Error).message, this.result(), kind);
  }
}
