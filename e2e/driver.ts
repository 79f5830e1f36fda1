/**
 * The stdio ACP driver: runs any ACP agent command as a child process and drives a scenario's
 * script through the ACP SDK client. It speaks only command line, environment and stdio, and keeps
 * the agent's stdout lines exactly as written (the bytes are tapped before the SDK parses them).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { cutText } from '@acp-snapshot/session-log';
import * as acp from '@agentclientprotocol/sdk';
import { AgentProcess, STDOUT_VIOLATION, type StdoutLine } from './agent-process.js';
import type { PermissionAnswer, Scenario, Step } from './scenario.js';

export type { StdoutLine } from './agent-process.js';

/** Wraps one exchange for reporting (Playwright's `test.step` in specs). */
export type StepRunner = <T>(title: string, body: () => Promise<T>) => Promise<T>;

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
      const text = step.text.length > 50 ? `${cutText(step.text, 47)}...` : step.text;
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
