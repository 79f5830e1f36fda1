/**
 * ACP v2 checks (`--protocol 2`), derived from the v2 spec (protocol/v2: initialization, prompt-lifecycle,
 * session-setup, session-list, authentication, migration) and the SDK's v2 schema (`schema/v2/schema.json`).
 * Every check asks for protocolVersion 2; an agent that answers 1 makes it `v1-only` ({@link CheckV1Only}),
 * not a failure.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Check, type CheckContext, CheckV1Only, clip, fail, failIf, skip } from '../check.js';
import { finish, indexOf, resultOf, SESSION_LEVEL_UPDATES, textPrompt, updateKind } from '../exchange.js';
import { checkAgentMessageV2, checkDef, schemaPath } from '../schema.js';
import { type AgentConnection, isAgentRequest, isNotification, isResponse, WaitError } from '../wire.js';

type Json = Record<string, unknown>;

/** The initialize params of a v2 client: the version, the role-agnostic `info` and `capabilities` (none). */
export function initializeParamsV2(): Json {
  return {
    protocolVersion: 2,
    info: { name: 'acp-snapshot-conformance', version: '1.0.0' },
    capabilities: {},
  };
}

/** initialize asking for 2; the result of an agent that answered 2, or {@link CheckV1Only} for one that answered 1. */
export async function initializeV2(conn: AgentConnection, ctx: CheckContext): Promise<Json> {
  const result = resultOf(
    await conn.request('initialize', initializeParamsV2(), ctx.timeouts.request),
    'initialize (protocolVersion 2)',
  );
  if (result.protocolVersion === 1) throw new CheckV1Only(1);
  if (result.protocolVersion !== 2)
    fail(
      `asked for 2, got protocolVersion ${JSON.stringify(result.protocolVersion)} (an agent answers the version asked for, or its latest when it does not support it)`,
    );
  return result;
}

/** One process that asks for v2 and ends: its initialize result. */
async function initializeOnly(ctx: CheckContext): Promise<Json> {
  const conn = ctx.start();
  try {
    return await initializeV2(conn, ctx);
  } finally {
    await finish(conn, ctx);
  }
}

/** A v2 session: `session/new` (mcpServers may be omitted in v2). */
async function newSessionV2(conn: AgentConnection, ctx: CheckContext): Promise<string> {
  const result = resultOf(
    await conn.request('session/new', { cwd: ctx.cwd, mcpServers: [] }, ctx.timeouts.request),
    'session/new',
  );
  if (typeof result.sessionId !== 'string' || result.sessionId === '')
    fail(`session/new returned sessionId ${JSON.stringify(result.sessionId)}, not a non-empty string`);
  return result.sessionId;
}

async function startV2(
  ctx: CheckContext,
  label?: string,
): Promise<{ conn: AgentConnection; sessionId: string; init: Json }> {
  const conn = ctx.start(label);
  const init = await initializeV2(conn, ctx);
  if ((init.capabilities as Json | null | undefined)?.session == null)
    skip('the agent does not advertise capabilities.session (no session methods)');
  return { conn, sessionId: await newSessionV2(conn, ctx), init };
}

function updateOf(m: Json): Json | undefined {
  return isNotification(m, 'session/update') ? ((m.params ?? {}) as Json) : undefined;
}

function stateOf(m: Json, sessionId: string): { state?: unknown; stopReason?: unknown } | undefined {
  const p = updateOf(m);
  if (p?.sessionId !== sessionId || updateKind(p) !== 'state_update') return undefined;
  return p.update as { state?: unknown; stopReason?: unknown };
}

/** The stop reasons v2 defines (the idle update's variants), read from the schema; `_`-prefixed ones are custom. */
function v2StopReasons(): string[] {
  const schema = JSON.parse(readFileSync(schemaPath(2), 'utf8')) as {
    $defs: { IdleStateUpdate: { anyOf: { properties?: { stopReason?: { const?: string } } }[] } };
  };
  return schema.$defs.IdleStateUpdate.anyOf.flatMap((v) => v.properties?.stopReason?.const ?? []);
}

/** Message kinds that must carry a `messageId` in v2: chunks and whole-message upserts. */
const MESSAGE_KINDS = new Set([
  'user_message_chunk',
  'user_message',
  'agent_message_chunk',
  'agent_message',
  'agent_thought_chunk',
  'agent_thought',
]);

/** What a v2 turn looked like: the acknowledgement, the idle update that ended it, and where each is. */
interface TurnV2 {
  promptId: unknown;
  from: number;
  response?: Json;
  responseIndex: number;
  idle: { state?: unknown; stopReason?: unknown };
  idleIndex: number;
  /** The session's updates from the prompt up to the idle one. */
  updates: Json[];
}

/**
 * The turn's end: the first idle state_update for the session after the prompt that carries a stop reason or
 * follows a `running` (an idle snapshot without either is the session's state before the prompt was taken).
 */
function turnEnd(sessionId: string, conn: AgentConnection, from: number): (m: Json) => boolean {
  return (m) => {
    const s = stateOf(m, sessionId);
    if (s?.state !== 'idle') return false;
    if (s.stopReason != null) return true;
    const at = indexOf(conn, m);
    return conn.inbound.slice(from, at).some((i) => i.msg && stateOf(i.msg, sessionId)?.state === 'running');
  };
}

/** Waits for the idle update of a turn started at `from`, then for the prompt's acknowledgement. */
async function waitTurnEnd(
  conn: AgentConnection,
  ctx: CheckContext,
  sessionId: string,
  promptId: unknown,
  from: number,
): Promise<TurnV2> {
  const idleMsg = await conn.waitFor(
    turnEnd(sessionId, conn, from),
    'the idle state_update ending the turn',
    ctx.timeouts.turn,
    from,
  );
  const idleIndex = indexOf(conn, idleMsg);
  const response = await conn
    .response(promptId as string | number, 'the session/prompt acknowledgement', ctx.timeouts.request)
    .catch((e) => {
      if (e instanceof WaitError) return undefined;
      throw e;
    });
  const updates = conn.inbound.slice(from, idleIndex + 1).flatMap((i) => {
    const p = i.msg && updateOf(i.msg);
    return p && p.sessionId === sessionId ? [p] : [];
  });
  return {
    promptId,
    from,
    ...(response && { response }),
    responseIndex: response ? indexOf(conn, response) : -1,
    idle: stateOf(idleMsg, sessionId)!,
    idleIndex,
    updates,
  };
}

/** Sends a prompt and waits for the idle update that ends its turn. */
async function promptTurnV2(
  conn: AgentConnection,
  ctx: CheckContext,
  sessionId: string,
  text: string,
): Promise<TurnV2> {
  const from = conn.inbound.length;
  const promptId = conn.sendRequest('session/prompt', textPrompt(sessionId, text));
  return waitTurnEnd(conn, ctx, sessionId, promptId, from);
}

/** Turn output that must not follow a cancelled idle: messages, tool calls, plans (not session-level updates). */
function isTurnOutput(p: Json): boolean {
  const kind = updateKind(p) ?? '';
  return kind !== 'state_update' && !SESSION_LEVEL_UPDATES.has(kind);
}

/** A sign foreground work is producing output (a v2 running state is not: agents send it before any model call). */
function progressV2(sessionId: string, conn: AgentConnection, from: number) {
  const ended = turnEnd(sessionId, conn, from);
  return (m: Json): boolean => {
    if (ended(m)) return true;
    const params = m.params as Json | undefined;
    if (params?.sessionId !== sessionId) return false;
    if (isAgentRequest(m, 'session/request_permission')) return true;
    const p = updateOf(m);
    if (!p) return false;
    const kind = updateKind(p) ?? '';
    return kind !== 'user_message' && kind !== 'user_message_chunk' && isTurnOutput(p);
  };
}

/** Starts a turn, cancels (or closes) once it shows output, and waits for the idle that ends it. */
async function interruptTurn(
  conn: AgentConnection,
  ctx: CheckContext,
  sessionId: string,
  how: 'cancel' | 'close',
): Promise<{ turn: TurnV2; closeResponse?: Json }> {
  conn.permissionPolicy = 'hold';
  const from = conn.inbound.length;
  const promptId = conn.sendRequest(
    'session/prompt',
    textPrompt(sessionId, 'Count slowly from one to one thousand.'),
  );
  const first = await conn
    .waitFor(progressV2(sessionId, conn, from), 'a sign the turn is running', ctx.timeouts.progress, from)
    .catch((e) => {
      if (e instanceof WaitError && !conn.exit) return undefined;
      throw e;
    });
  if (first && stateOf(first, sessionId)?.state === 'idle')
    skip(
      `the turn ended (${clip(JSON.stringify(stateOf(first, sessionId)), 80)}) before a ${how} could be sent`,
    );
  let closeId: string | number | undefined;
  if (how === 'cancel') conn.notify('session/cancel', { sessionId });
  else closeId = conn.sendRequest('session/close', { sessionId }) as number;
  conn.settleHeldPermissions();
  conn.permissionPolicy = 'cancelled';
  const turn = await waitTurnEnd(conn, ctx, sessionId, promptId, from);
  const closeResponse =
    closeId === undefined
      ? undefined
      : await conn.response(closeId, 'the session/close response', ctx.timeouts.request);
  return { turn, ...(closeResponse && { closeResponse }) };
}

function cancelledVerdict(conn: AgentConnection, sessionId: string, turn: TurnV2, how: string): string[] {
  const problems: string[] = [];
  if (turn.idle.stopReason !== 'cancelled')
    problems.push(
      `after ${how} the idle state_update has stopReason ${JSON.stringify(turn.idle.stopReason)}, expected "cancelled"`,
    );
  const late = conn.inbound.slice(turn.idleIndex + 1).flatMap((i) => {
    const p = i.msg && updateOf(i.msg);
    return p && p.sessionId === sessionId && isTurnOutput(p) ? [{ line: i.line, kind: updateKind(p) }] : [];
  });
  if (late.length > 0)
    problems.push(
      `${late.length} update(s) of the cancelled work arrived after its idle state_update (first: ${late[0]!.kind}, stdout line ${late[0]!.line}); the agent must send them before the idle`,
    );
  return problems;
}

/** Any error answering a method that says the method does not exist. */
function methodMissing(resp: Json, method: string): string | undefined {
  const code = (resp.error as { code?: unknown } | undefined)?.code;
  return code === -32601
    ? `${method} answered -32601 (method not found): ${clip(JSON.stringify(resp.error), 120)}`
    : undefined;
}

const negotiation: Check = {
  id: 'v2.negotiation',
  title:
    'initialize asking for protocolVersion 2 answers 2 (or 1: v1-only), and the v2 result is a schema-valid InitializeResponse with the required info',
  source:
    'protocol/v2/initialization (version negotiation, implementation information); migration (version negotiation)',
  level: 'mandatory',
  protocol: 2,
  async run(ctx) {
    const init = await initializeOnly(ctx);
    const problem = checkDef('InitializeResponse', init, 2);
    if (problem) fail(`asked for 2, got 2; the result ${problem}`);
    return `protocolVersion 2; info ${clip(JSON.stringify(init.info), 100)}`;
  },
};

/** v1 names in an initialize result that v2 renamed or removed. */
const V1_INIT_FIELDS: Record<string, string> = {
  agentCapabilities: 'v2 names it capabilities',
  agentInfo: 'v2 names it info',
};
const V1_CAPABILITY_FIELDS: Record<string, string> = {
  loadSession: 'v2 removed session/load (session/resume with replayFrom)',
  promptCapabilities: 'v2 nests it as capabilities.session.prompt',
  mcpCapabilities: 'v2 nests it as capabilities.session.mcp',
  sessionCapabilities: 'v2 names it capabilities.session',
};

/** Every boolean under `value` (outside `_meta`), by path: a v2 support marker is an object or null. */
function booleanMarkers(value: unknown, path: string): string[] {
  if (typeof value === 'boolean') return [`${path} is ${value}`];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '_meta' ? [] : booleanMarkers(v, `${path}.${k}`)));
}

const capabilityObjects: Check = {
  id: 'v2.capabilities',
  title:
    'the v2 initialize result names capabilities and info (not v1 agentCapabilities / agentInfo), and every support marker is an object, not a boolean',
  source: 'protocol/v2/initialization; migration (support markers are objects, capability reorganization)',
  level: 'mandatory',
  protocol: 2,
  async run(ctx) {
    const init = await initializeOnly(ctx);
    const problems: string[] = [];
    for (const [k, why] of Object.entries(V1_INIT_FIELDS))
      if (k in init) problems.push(`the result has the v1 field ${k} (${why})`);
    const caps = init.capabilities;
    if (caps != null && typeof caps === 'object') {
      for (const [k, why] of Object.entries(V1_CAPABILITY_FIELDS))
        if (k in caps) problems.push(`capabilities.${k} is a v1 field (${why})`);
      problems.push(
        ...booleanMarkers(caps, 'capabilities').map(
          (b) => `${b}: a v2 support marker is an object ({} = supported) or omitted`,
        ),
      );
    }
    failIf(problems);
    return `capabilities ${clip(JSON.stringify(caps ?? '(absent)'), 120)}`;
  },
};

const promptAckIdle: Check = {
  id: 'v2.prompt-ack-idle',
  title:
    'session/prompt is acknowledged with {messageId} before the turn ends; the user message is echoed with that messageId, the work reports running, and the turn ends with an idle state_update carrying a stop reason',
  source:
    'protocol/v2/prompt-lifecycle (prompt accepted, running, report completion); schema $defs/PromptResponse, StateUpdate, IdleStateUpdate',
  level: 'mandatory',
  protocol: 2,
  turns: ['simple'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startV2(ctx);
    let turn: TurnV2;
    try {
      turn = await promptTurnV2(conn, ctx, sessionId, 'Say hello in one short sentence.');
    } finally {
      await finish(conn, ctx);
    }
    const problems: string[] = [];
    if (!turn.response) problems.push('no response to session/prompt arrived (it acknowledges the prompt)');
    else if ('error' in turn.response)
      problems.push(
        `session/prompt answered an error although the turn ran: ${clip(JSON.stringify(turn.response.error))}`,
      );
    else {
      const p = checkDef('PromptResponse', turn.response.result, 2);
      if (p) problems.push(`the acknowledgement ${p}`);
      if (turn.responseIndex > turn.idleIndex)
        problems.push(
          `the acknowledgement (stdout line ${conn.inbound[turn.responseIndex]!.line}) came after the idle state_update (line ${conn.inbound[turn.idleIndex]!.line}): in v2 the response acknowledges the prompt, it does not end the turn`,
        );
      const messageId = (turn.response.result as Json | undefined)?.messageId;
      const echoed = conn.messages.some((m) => {
        const u = updateOf(m);
        const kind = u && updateKind(u);
        return (
          u?.sessionId === sessionId &&
          (kind === 'user_message' || kind === 'user_message_chunk') &&
          (u.update as Json).messageId === messageId
        );
      });
      if (typeof messageId === 'string' && !echoed)
        problems.push(
          `no user_message or user_message_chunk with the acknowledged messageId ${JSON.stringify(messageId)}`,
        );
    }
    const running = turn.updates.some((u) => (u.update as Json).state === 'running');
    if (!running) problems.push('no state_update "running" between the prompt and the idle update');
    const reasons = v2StopReasons();
    const reason = turn.idle.stopReason;
    if (typeof reason !== 'string' || !(reasons.includes(reason) || reason.startsWith('_')))
      problems.push(
        `the idle state_update has stopReason ${JSON.stringify(reason)}, not one of ${reasons.join(', ')}`,
      );
    failIf(problems);
    return `acknowledged ${clip(JSON.stringify(turn.response?.result), 80)}; idle stopReason ${String(reason)}`;
  },
};

const upserts: Check = {
  id: 'v2.upserts',
  title:
    'every message chunk and message upsert carries a messageId; tool calls are created by their first tool_call_update (no v1 tool_call), and content chunks extend a created call',
  source:
    'protocol/v2/prompt-lifecycle (message IDs); migration (messages and message IDs, tool calls: one upsert notification)',
  level: 'mandatory',
  protocol: 2,
  turns: ['file'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startV2(ctx);
    try {
      await promptTurnV2(conn, ctx, sessionId, 'Read the file README.md and summarize it in one sentence.');
    } finally {
      await finish(conn, ctx);
    }
    const problems: string[] = [];
    const created = new Set<unknown>();
    const untitled: unknown[] = [];
    let messages = 0;
    for (const entry of conn.inbound) {
      const p = entry.msg && updateOf(entry.msg);
      if (!p) continue;
      const u = p.update as Json;
      const kind = updateKind(p) ?? '';
      const at = `stdout line ${entry.line}`;
      if (MESSAGE_KINDS.has(kind)) {
        messages++;
        if (typeof u.messageId !== 'string' || u.messageId === '')
          problems.push(
            `${at}: ${kind} has messageId ${JSON.stringify(u.messageId)}, v2 requires one on every message chunk and update`,
          );
      } else if (kind === 'tool_call') {
        problems.push(`${at}: a v1 tool_call update; v2 creates a call with its first tool_call_update`);
      } else if (kind === 'tool_call_update') {
        if (!created.has(u.toolCallId) && u.title == null) untitled.push(u.toolCallId);
        created.add(u.toolCallId);
      } else if (kind === 'tool_call_content_chunk' && !created.has(u.toolCallId)) {
        problems.push(
          `${at}: tool_call_content_chunk for ${JSON.stringify(u.toolCallId)}, which no tool_call_update created`,
        );
      }
    }
    failIf(problems);
    const calls =
      created.size === 0 ? 'no tool call' : `${created.size} tool call(s) created by tool_call_update`;
    const noTitle = untitled.length
      ? ` (${untitled.length} first reported without the title the spec asks for)`
      : '';
    return `${messages} message update(s), each with a messageId; ${calls}${noTitle}`;
  },
};

const cancel: Check = {
  id: 'v2.cancel',
  title:
    'session/cancel during a turn ends it with an idle state_update whose stopReason is "cancelled", and no output of the work follows that update',
  source: 'protocol/v2/prompt-lifecycle (cancellation); migration (cancellation)',
  level: 'mandatory',
  protocol: 2,
  turns: ['slow'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startV2(ctx);
    let turn: TurnV2;
    try {
      turn = (await interruptTurn(conn, ctx, sessionId, 'cancel')).turn;
    } finally {
      await finish(conn, ctx);
    }
    failIf(cancelledVerdict(conn, sessionId, turn, 'session/cancel'));
    return 'idle stopReason cancelled; nothing of the work after it';
  },
};

const list: Check = {
  id: 'v2.session-list',
  title:
    'session/list is answered (required in v2) with a valid result; a cwd filter returns only that cwd, and an empty array for a directory without sessions',
  source: 'protocol/v2/session-list; migration (baseline methods); schema $defs/ListSessionsResponse',
  level: 'mandatory',
  protocol: 2,
  async run(ctx) {
    const { conn } = await startV2(ctx);
    const elsewhere = join(ctx.cwd, 'no-session-here');
    mkdirSync(elsewhere, { recursive: true });
    let here: Json;
    let none: Json;
    try {
      here = await conn.request('session/list', { cwd: ctx.cwd }, ctx.timeouts.request);
      none = await conn.request('session/list', { cwd: elsewhere }, ctx.timeouts.request);
    } finally {
      await finish(conn, ctx);
    }
    const missing = methodMissing(here, 'session/list');
    if (missing)
      fail(`${missing}; v2 requires session/list of an agent that advertises capabilities.session`);
    const problems: string[] = [];
    const sessionsOf = (resp: Json, what: string): Json[] => {
      const result = resultOf(resp, what);
      const p = checkDef('ListSessionsResponse', result, 2);
      if (p) problems.push(`the ${what} result ${p}`);
      return Array.isArray(result.sessions) ? (result.sessions as Json[]) : [];
    };
    const listed = sessionsOf(here, 'session/list');
    const stray = listed.filter((s) => s.cwd !== ctx.cwd);
    if (stray.length > 0)
      problems.push(
        `the cwd filter returned ${stray.length} session(s) of another cwd (first: ${clip(JSON.stringify(stray[0]), 120)})`,
      );
    const empty = sessionsOf(none, 'session/list of a directory without sessions');
    if (empty.length > 0)
      problems.push(
        `a cwd filter naming a directory without sessions returned ${empty.length} session(s) instead of an empty array`,
      );
    failIf(problems);
    return `${listed.length} session(s) in the check's cwd, none elsewhere`;
  },
};

/** A session with one finished turn in a first process, for the resume checks. */
async function sessionWithHistory(ctx: CheckContext): Promise<{ sessionId: string; first: AgentConnection }> {
  const { conn, sessionId } = await startV2(ctx, 'first process');
  try {
    await promptTurnV2(conn, ctx, sessionId, 'Say hello in one short sentence.');
  } finally {
    await finish(conn, ctx);
  }
  return { sessionId, first: conn };
}

/** session/resume in a fresh process: the response, and the session's updates before it. */
async function resumeIn(
  ctx: CheckContext,
  sessionId: string,
  replay: boolean,
): Promise<{ conn: AgentConnection; resp: Json; before: Json[] }> {
  const conn = ctx.start('second process');
  await initializeV2(conn, ctx);
  const from = conn.inbound.length;
  const resp = await conn.request(
    'session/resume',
    { sessionId, cwd: ctx.cwd, mcpServers: [], ...(replay && { replayFrom: { type: 'start' } }) },
    ctx.timeouts.turn,
  );
  const before = conn.inbound.slice(from, indexOf(conn, resp)).flatMap((i) => {
    const p = i.msg && updateOf(i.msg);
    return p && p.sessionId === sessionId ? [p] : [];
  });
  return { conn, resp, before };
}

function resumeProblems(resp: Json, before: Json[]): string[] {
  const missing = methodMissing(resp, 'session/resume');
  if (missing)
    return [`${missing}; v2 requires session/resume of an agent that advertises capabilities.session`];
  const problems: string[] = [];
  const p = checkDef('ResumeSessionResponse', resultOf(resp, 'session/resume'), 2);
  if (p) problems.push(`the session/resume result ${p}`);
  if (!before.some((u) => updateKind(u) === 'state_update'))
    problems.push(
      'no state_update before the session/resume response (the agent must send the current state after any replay and before responding)',
    );
  return problems;
}

const resume: Check = {
  id: 'v2.session-resume',
  title:
    'session/resume (required in v2) without replayFrom continues a session in a fresh process: a valid result after a current state_update, no history replayed, and the next prompt runs',
  source:
    'protocol/v2/session-setup (resuming sessions, current-state synchronization); schema $defs/ResumeSessionResponse',
  level: 'mandatory',
  protocol: 2,
  turns: ['simple', 'simple'],
  async run(ctx) {
    const { sessionId } = await sessionWithHistory(ctx);
    const { conn, resp, before } = await resumeIn(ctx, sessionId, false);
    let next: TurnV2 | undefined;
    try {
      if (!('error' in resp))
        next = await promptTurnV2(conn, ctx, sessionId, 'Say goodbye in one short sentence.');
    } finally {
      await finish(conn, ctx);
    }
    const problems = resumeProblems(resp, before);
    const replayed = before.filter((u) => MESSAGE_KINDS.has(updateKind(u) ?? ''));
    if (replayed.length > 0)
      problems.push(
        `${replayed.length} message update(s) replayed before the response although replayFrom was omitted`,
      );
    failIf(problems);
    return `resumed without replay; the next turn ended ${String(next?.idle.stopReason)}`;
  },
};

const resumeReplay: Check = {
  id: 'v2.resume-replay',
  title:
    'session/resume with replayFrom {type:"start"} replays the conversation as message updates (each with a messageId) before it responds',
  source: 'protocol/v2/session-setup (resuming sessions: replayFrom start); migration (session/load is gone)',
  level: 'mandatory',
  protocol: 2,
  turns: ['simple'],
  async run(ctx) {
    const { sessionId } = await sessionWithHistory(ctx);
    const { conn, resp, before } = await resumeIn(ctx, sessionId, true);
    await finish(conn, ctx);
    const problems = resumeProblems(resp, before);
    const messages = before.filter((u) => MESSAGE_KINDS.has(updateKind(u) ?? ''));
    const kinds = new Set(messages.map((u) => updateKind(u)!.replace(/_chunk$/, '')));
    if (!kinds.has('user_message')) problems.push('the replay before the response holds no user message');
    if (!kinds.has('agent_message')) problems.push('the replay before the response holds no agent message');
    if (ctx.modelText) {
      const text = messages
        .filter((u) => updateKind(u)?.startsWith('agent_message'))
        .map((u) => JSON.stringify((u.update as Json).content ?? ''))
        .join('');
      if (!text.includes(ctx.modelText.slice(0, 12)))
        problems.push(
          `the replayed agent messages do not hold the model's answer ${JSON.stringify(ctx.modelText)}`,
        );
    }
    failIf(problems);
    return `${messages.length} message update(s) replayed before the response`;
  },
};

const close: Check = {
  id: 'v2.session-close',
  title:
    'session/close (required in v2) of a session with running work answers a valid result and ends the work with an idle "cancelled", nothing after it',
  source: 'protocol/v2/session-setup (closing active sessions); schema $defs/CloseSessionResponse',
  level: 'mandatory',
  protocol: 2,
  turns: ['slow'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startV2(ctx);
    let r: Awaited<ReturnType<typeof interruptTurn>>;
    try {
      r = await interruptTurn(conn, ctx, sessionId, 'close');
    } finally {
      await finish(conn, ctx);
    }
    const resp = r.closeResponse!;
    const missing = methodMissing(resp, 'session/close');
    if (missing)
      fail(`${missing}; v2 requires session/close of an agent that advertises capabilities.session`);
    const problems: string[] = [];
    const p = checkDef('CloseSessionResponse', resultOf(resp, 'session/close'), 2);
    if (p) problems.push(`the session/close result ${p}`);
    problems.push(...cancelledVerdict(conn, sessionId, r.turn, 'session/close'));
    failIf(problems);
    return 'closed; the running work ended idle cancelled';
  },
};

const auth: Check = {
  id: 'v2.auth-methods',
  title:
    'an agent that advertises authMethods answers auth/login and auth/logout (v2 names; -32601 means missing), and each method has a methodId and a type',
  source:
    'protocol/v2/authentication (advertising authentication); migration (authentication); schema $defs/AuthMethod',
  level: 'capability',
  protocol: 2,
  async run(ctx) {
    const conn = ctx.start();
    let init: Json;
    let login: Json;
    let logout: Json;
    try {
      init = await initializeV2(conn, ctx);
      const methods = init.authMethods;
      if (!Array.isArray(methods) || methods.length === 0)
        skip('the agent advertises no authMethods (clients must not call auth/login or auth/logout)');
      // An id no method has: the agent must answer (a -32602 is fine) without starting a login flow.
      login = await conn.request(
        'auth/login',
        { methodId: '_acp_conformance_no_such_method' },
        ctx.timeouts.request,
      );
      logout = await conn.request('auth/logout', {}, ctx.timeouts.request);
    } finally {
      await finish(conn, ctx);
    }
    const problems: string[] = [];
    (init.authMethods as Json[]).forEach((m, i) => {
      const p = checkDef('AuthMethod', m, 2);
      if (p) problems.push(`authMethods[${i}] ${p}`);
      if (typeof m.methodId !== 'string')
        problems.push(`authMethods[${i}] has no methodId${'id' in m ? ' (the v1 field id)' : ''}`);
    });
    for (const [resp, method] of [
      [login, 'auth/login'],
      [logout, 'auth/logout'],
    ] as const) {
      const missing = methodMissing(resp, method);
      if (missing) problems.push(missing);
    }
    failIf(problems);
    return `${(init.authMethods as unknown[]).length} auth method(s); auth/login answered ${clip(JSON.stringify(login.error ?? login.result), 60)}, auth/logout ${clip(JSON.stringify(logout.error ?? logout.result), 60)}`;
  },
};

const schemaMessages: Check = {
  id: 'v2.schema',
  title:
    'every message the agent sends on a v2 connection validates against the SDK v2 schema, and it sends no method or update kind v2 removed (fs/*, terminal/*, tool_call, plan)',
  source:
    'schema/v2/schema.json; migration (client file system and terminal execution removed, session/update variant changes)',
  level: 'mandatory',
  protocol: 2,
  turns: ['file', 'permission'],
  async run(ctx) {
    const { conn, sessionId } = await startV2(ctx);
    try {
      await conn.request('session/list', {}, ctx.timeouts.request);
      await promptTurnV2(conn, ctx, sessionId, 'Read the file README.md and summarize it in one sentence.');
      await promptTurnV2(conn, ctx, sessionId, 'Create a file named conformance.txt containing the word ok.');
    } finally {
      await finish(conn, ctx);
    }
    const methodOf = new Map<unknown, string>();
    for (const o of conn.outbound)
      if (o.msg && typeof o.msg.method === 'string' && 'id' in o.msg) methodOf.set(o.msg.id, o.msg.method);
    const problems = conn.inbound.flatMap((i) =>
      i.msg
        ? checkAgentMessageV2(i.msg, isResponse(i.msg) ? methodOf.get(i.msg.id) : undefined).map(
            (p) => `stdout line ${i.line}: ${p}`,
          )
        : [],
    );
    failIf(problems);
    return `${conn.messages.length} message(s), all valid under the v2 schema`;
  },
};

/** The ACP v2 checks, in report order: negotiation first (its answer says whether the rest apply). */
export const v2Checks: Check[] = [
  negotiation,
  capabilityObjects,
  promptAckIdle,
  upserts,
  cancel,
  list,
  resume,
  resumeReplay,
  close,
  auth,
  schemaMessages,
];
