/**
 * The session surface beyond new/load (ACP v1 protocol/session-list, session-setup resume and close,
 * session-modes, session-config-options). Each check applies only when the agent offers the feature:
 * `agentCapabilities.sessionCapabilities.<name>` for list, resume, close and delete; `modes` or
 * `configOptions` in the session/new result for modes and config options. Otherwise it is skipped.
 */
import { mkdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { type Check, type CheckContext, clip, fail, failIf, skip } from '../check.js';
import {
  finish,
  indexOf,
  initialize,
  newSession,
  progressOrResponse,
  promptTurn,
  resultOf,
  startSession,
  textPrompt,
  turnUpdatesAfter,
  updatesAfter,
} from '../exchange.js';
import { checkDef, stopReasons } from '../schema.js';
import { type AgentConnection, isNotification, WaitError } from '../wire.js';

type Json = Record<string, unknown>;

/** Whether initialize declared `agentCapabilities.sessionCapabilities.<name>` (omitted or null: not declared). */
function declares(init: Json, name: string): boolean {
  const caps = (
    init.agentCapabilities as { sessionCapabilities?: Record<string, unknown> | null } | undefined
  )?.sessionCapabilities;
  return caps != null && typeof caps === 'object' && caps[name] != null;
}

function requireCapability(init: Json, name: string): void {
  if (!declares(init, name)) skip(`the agent does not declare agentCapabilities.sessionCapabilities.${name}`);
}

/** The most pages a check follows before it calls a cursor endless. */
const MAX_PAGES = 50;

/** Every page of session/list with these params; a problem for each page that breaks the schema. */
async function listAll(
  conn: AgentConnection,
  ctx: CheckContext,
  params: Json,
  problems: string[],
): Promise<{ sessions: Json[]; pages: number }> {
  const sessions: Json[] = [];
  let cursor: unknown;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const what = `session/list ${JSON.stringify({ ...params, ...(cursor !== undefined ? { cursor } : {}) })}`;
    const resp = await conn.request(
      'session/list',
      { ...params, ...(cursor !== undefined ? { cursor } : {}) },
      ctx.timeouts.request,
    );
    const result = resultOf(resp, what);
    const p = checkDef('ListSessionsResponse', result);
    if (p) problems.push(`${what}: result ${p}`);
    if (Array.isArray(result.sessions)) sessions.push(...(result.sessions as Json[]));
    cursor = result.nextCursor;
    if (cursor == null) return { sessions, pages: page };
  }
  problems.push(`session/list still returned a nextCursor after ${MAX_PAGES} pages: the cursor never ends`);
  return { sessions, pages: MAX_PAGES };
}

const list: Check = {
  id: 'session.list',
  title:
    'session/list (when declared) pages validate, a cwd filter returns only that cwd (an empty array for a directory without sessions), and nextCursor lists no session twice',
  source: 'protocol/session-list (listing sessions, pagination); schema $defs/ListSessionsResponse',
  level: 'capability',
  async run(ctx) {
    const conn = ctx.start();
    const problems: string[] = [];
    let all: Awaited<ReturnType<typeof listAll>>;
    let filtered: Json[];
    let empty: Json[];
    try {
      requireCapability(await initialize(conn, ctx), 'list');
      await newSession(conn, ctx);
      await newSession(conn, ctx);
      all = await listAll(conn, ctx, {}, problems);
      filtered = (await listAll(conn, ctx, { cwd: ctx.cwd }, problems)).sessions;
      const elsewhere = join(ctx.cwd, 'no-session-here');
      mkdirSync(elsewhere, { recursive: true });
      empty = (await listAll(conn, ctx, { cwd: elsewhere }, problems)).sessions;
    } finally {
      await finish(conn, ctx);
    }
    const ids = all.sessions.map((s) => s.sessionId);
    const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (twice.length > 0)
      problems.push(`following nextCursor listed ${JSON.stringify(twice[0])} twice (${all.pages} pages)`);
    for (const s of all.sessions)
      if (typeof s.cwd !== 'string' || !isAbsolute(s.cwd))
        problems.push(
          `session ${JSON.stringify(s.sessionId)} has cwd ${JSON.stringify(s.cwd)}, not an absolute path`,
        );
    const stray = filtered.filter((s) => s.cwd !== ctx.cwd);
    if (stray.length > 0)
      problems.push(
        `the cwd filter returned ${stray.length} session(s) of another cwd (first: ${clip(JSON.stringify(stray[0]), 120)})`,
      );
    if (empty.length > 0)
      problems.push(
        `a cwd filter naming a directory without sessions returned ${empty.length} session(s) instead of an empty array`,
      );
    failIf(problems);
    return `${ids.length} session(s) in ${all.pages} page(s); ${filtered.length} in the check's cwd, none elsewhere`;
  },
};

/** Update kinds that show conversation history: session/resume must not send them. */
const HISTORY_CHUNKS = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk']);

const historyChunks = (updates: Json[]) =>
  updates.filter((u) =>
    HISTORY_CHUNKS.has((u.update as { sessionUpdate?: string } | undefined)?.sessionUpdate ?? ''),
  );

const resume: Check = {
  id: 'session.resume',
  title:
    'session/resume (when declared) continues a session in a fresh process: a valid result, no history replayed, and the next prompt works',
  source: 'protocol/session-setup (resuming sessions); schema $defs/ResumeSessionResponse',
  level: 'capability',
  turns: ['simple', 'simple'],
  async run(ctx) {
    const first = await startSession(ctx, 'first process');
    const { sessionId } = first;
    try {
      requireCapability(first.init, 'resume');
      await promptTurn(first.conn, ctx, sessionId, 'Remember the word PAPAYA for the conformance check.');
    } finally {
      await finish(first.conn, ctx);
    }
    const conn = ctx.start('second process (session/resume)');
    const problems: string[] = [];
    let replayed: Json[];
    let stop: unknown;
    try {
      await initialize(conn, ctx);
      const from = conn.inbound.length;
      const resp = await conn.request('session/resume', { sessionId, cwd: ctx.cwd }, ctx.timeouts.turn);
      const p = checkDef('ResumeSessionResponse', resultOf(resp, 'session/resume'));
      if (p) problems.push(`session/resume result ${p}`);
      const turn = await promptTurn(conn, ctx, sessionId, 'Which word did I ask you to remember?');
      // Everything between the resume request and the next prompt is what the resume itself sent.
      replayed = historyChunks(updatesBetween(conn, from, turn.from, sessionId));
      stop = resultOf(turn.response, 'session/prompt after session/resume').stopReason;
    } finally {
      await finish(conn, ctx);
    }
    if (replayed.length > 0) {
      const kind = (replayed[0]!.update as { sessionUpdate?: string }).sessionUpdate;
      problems.push(
        `session/resume replayed ${replayed.length} history update(s) (first: ${kind}); resume must not return previous messages`,
      );
    }
    if (!stopReasons().includes(stop as string))
      problems.push(`the prompt after the resume ended with stopReason ${JSON.stringify(stop)}`);
    failIf(problems);
    return `resumed with no history replayed; the next prompt ended ${String(stop)}`;
  },
};

/** The session/update params for `sessionId` at inbound indexes `from` (inclusive) to `to` (exclusive). */
function updatesBetween(conn: AgentConnection, from: number, to: number, sessionId: string): Json[] {
  return conn.inbound.slice(from, to).flatMap((i) => {
    if (!i.msg || !isNotification(i.msg, 'session/update')) return [];
    const p = (i.msg.params ?? {}) as Json;
    return p.sessionId === sessionId ? [p] : [];
  });
}

const close: Check = {
  id: 'session.close',
  title:
    'session/close (when declared) closes an idle session, and cancels a running turn: the prompt ends "cancelled" and nothing follows it',
  source: 'protocol/session-setup (closing sessions); schema $defs/CloseSessionRequest, CloseSessionResponse',
  level: 'capability',
  turns: ['slow'],
  async run(ctx) {
    const conn = ctx.start();
    const problems: string[] = [];
    let busy: string;
    let promptResponse: Json;
    try {
      requireCapability(await initialize(conn, ctx), 'close');
      const idle = await newSession(conn, ctx);
      const p = checkDef(
        'CloseSessionResponse',
        resultOf(
          await conn.request('session/close', { sessionId: idle }, ctx.timeouts.request),
          'session/close of an idle session',
        ),
      );
      if (p) problems.push(`session/close result ${p}`);
      busy = await newSession(conn, ctx);
      conn.permissionPolicy = 'hold';
      const from = conn.inbound.length;
      const promptId = conn.sendRequest(
        'session/prompt',
        textPrompt(busy, 'Count slowly from one to one thousand.'),
      );
      const firstSign = await conn
        .waitFor(
          progressOrResponse(promptId, busy),
          'a sign the turn is running',
          ctx.timeouts.progress,
          from,
        )
        .catch((e) => {
          if (e instanceof WaitError && !conn.exit) return undefined;
          throw e;
        });
      if (firstSign && firstSign.id === promptId && !('method' in firstSign))
        skip('the turn ended before session/close could be sent');
      const closeId = conn.sendRequest('session/close', { sessionId: busy });
      conn.settleHeldPermissions();
      conn.permissionPolicy = 'cancelled';
      promptResponse = await conn.response(
        promptId,
        'the session/prompt response after session/close',
        ctx.timeouts.turn,
      );
      resultOf(
        await conn.response(closeId, 'the session/close response', ctx.timeouts.turn),
        'session/close of a session with a running turn',
      );
    } finally {
      await finish(conn, ctx);
    }
    if ('error' in promptResponse) {
      problems.push(
        `the closed session's prompt ended with an error instead of stopReason "cancelled": ${clip(JSON.stringify(promptResponse.error))}`,
      );
    } else {
      const reason = (promptResponse.result as { stopReason?: unknown } | undefined)?.stopReason;
      if (reason !== 'cancelled')
        problems.push(
          `the closed session's prompt ended with stopReason ${JSON.stringify(reason)}, expected "cancelled"`,
        );
    }
    const late = turnUpdatesAfter(conn, indexOf(conn, promptResponse), busy);
    if (late.length > 0)
      problems.push(
        `${late.length} session/update(s) for the closed session arrived after its prompt response`,
      );
    failIf(problems);
    return 'an idle session closed; a running turn ended "cancelled" with nothing after it';
  },
};

const del: Check = {
  id: 'session.delete',
  title:
    'session/delete (when declared) answers with a result, also for an id it never created, and a deleted session leaves session/list',
  source: 'protocol/session-list (session/delete); schema $defs/DeleteSessionRequest, DeleteSessionResponse',
  level: 'capability',
  async run(ctx) {
    const conn = ctx.start();
    const problems: string[] = [];
    let listed: Json[] | undefined;
    let sessionId: string;
    try {
      const init = await initialize(conn, ctx);
      requireCapability(init, 'delete');
      sessionId = await newSession(conn, ctx);
      const r = resultOf(
        await conn.request('session/delete', { sessionId }, ctx.timeouts.request),
        'session/delete',
      );
      const p = checkDef('DeleteSessionResponse', r);
      if (p) problems.push(`session/delete result ${p}`);
      const unknown = await conn.request(
        'session/delete',
        { sessionId: 'conformance-never-created' },
        ctx.timeouts.request,
      );
      // Deleting is idempotent: the SDK treats -32002 (not found) like success.
      const code = (unknown.error as { code?: unknown } | undefined)?.code;
      if ('error' in unknown && code !== -32002)
        problems.push(
          `session/delete of an id never created failed with ${clip(JSON.stringify(unknown.error))} (expected a result, or -32002)`,
        );
      if (declares(init, 'list')) listed = (await listAll(conn, ctx, {}, problems)).sessions;
    } finally {
      await finish(conn, ctx);
    }
    if (listed?.some((s) => s.sessionId === sessionId))
      problems.push(`session/list still lists the deleted session ${JSON.stringify(sessionId)}`);
    failIf(problems);
    return `deleted; an unknown id answered too${listed ? '; gone from session/list' : ''}`;
  },
};

/** session/new in the check's cwd; returns the whole result. */
async function newSessionResult(conn: AgentConnection, ctx: CheckContext): Promise<Json> {
  return resultOf(
    await conn.request('session/new', { cwd: ctx.cwd, mcpServers: [] }, ctx.timeouts.request),
    'session/new',
  );
}

const modes: Check = {
  id: 'session.modes',
  title:
    'session modes (when session/new returns them) are schema-valid with the current mode among the available ones; session/set_mode to another one succeeds and any current_mode_update names it',
  source: 'protocol/session-modes; schema $defs/SessionModeState, SetSessionModeResponse, CurrentModeUpdate',
  level: 'capability',
  async run(ctx) {
    const conn = ctx.start();
    const problems: string[] = [];
    let sessionId: string;
    let target: string | undefined;
    let from = 0;
    try {
      await initialize(conn, ctx);
      const created = await newSessionResult(conn, ctx);
      const state = created.modes as
        | { currentModeId?: unknown; availableModes?: { id?: unknown }[] }
        | null
        | undefined;
      if (state == null) skip('session/new returned no modes');
      sessionId = created.sessionId as string;
      const p = checkDef('SessionModeState', state);
      if (p) fail(`session/new modes ${p}`);
      const ids = (state.availableModes ?? []).map((m) => m.id);
      if (!ids.includes(state.currentModeId))
        fail(
          `currentModeId ${JSON.stringify(state.currentModeId)} is not one of the availableModes (${ids.join(', ')})`,
        );
      target = ids.find((id) => id !== state.currentModeId) as string | undefined;
      if (target !== undefined) {
        from = conn.inbound.length;
        const r = resultOf(
          await conn.request('session/set_mode', { sessionId, modeId: target }, ctx.timeouts.request),
          `session/set_mode ${target}`,
        );
        const q = checkDef('SetSessionModeResponse', r);
        if (q) problems.push(`session/set_mode result ${q}`);
        // A request after it: a current_mode_update sent right after the response is on the transcript too.
        await newSession(conn, ctx);
      }
    } finally {
      await finish(conn, ctx);
    }
    if (target === undefined) return 'one mode only: nothing to switch to';
    const named = updatesAfter(conn, from - 1, sessionId)
      .map((u) => u.update as { sessionUpdate?: string; currentModeId?: unknown })
      .filter((u) => u.sessionUpdate === 'current_mode_update');
    for (const u of named)
      if (u.currentModeId !== target)
        problems.push(
          `a current_mode_update after session/set_mode ${target} names ${JSON.stringify(u.currentModeId)}`,
        );
    failIf(problems);
    return `switched to ${target}${named.length ? ` (${named.length} current_mode_update)` : ''}`;
  },
};

/** The legal values of a select option (flat or grouped). */
function selectValues(options: unknown): unknown[] {
  if (!Array.isArray(options)) return [];
  return options.flatMap((o: { value?: unknown; options?: { value?: unknown }[] }) =>
    'value' in o ? [o.value] : Array.isArray(o.options) ? o.options.map((x) => x.value) : [],
  );
}

type ConfigOption = { id?: unknown; type?: unknown; currentValue?: unknown; options?: unknown };

const configOptions: Check = {
  id: 'session.config-options',
  title:
    'config options (when session/new returns them) hold legal current values, none boolean unless the client offers it; session/set_config_option answers the complete list with the new value',
  source: 'protocol/session-config-options; schema $defs/SessionConfigOption, SetSessionConfigOptionResponse',
  level: 'capability',
  async run(ctx) {
    const conn = ctx.start();
    const problems: string[] = [];
    let changed: string;
    try {
      await initialize(conn, ctx);
      const created = await newSessionResult(conn, ctx);
      const options = created.configOptions as ConfigOption[] | null | undefined;
      if (options == null || options.length === 0) skip('session/new returned no configOptions');
      for (const o of options) {
        const p = checkDef('SessionConfigOption', o);
        if (p) problems.push(`config option ${JSON.stringify(o.id)} ${p}`);
        if (o.type === 'boolean')
          problems.push(
            `config option ${JSON.stringify(o.id)} is boolean, but the client did not offer session.configOptions.boolean`,
          );
        else if (!selectValues(o.options).includes(o.currentValue))
          problems.push(
            `config option ${JSON.stringify(o.id)} has currentValue ${JSON.stringify(o.currentValue)}, not one of its options`,
          );
      }
      const target = options.find(
        (o) => o.type === 'select' && selectValues(o.options).some((v) => v !== o.currentValue),
      );
      if (!target) {
        failIf(problems);
        return 'no select option with a second value to switch to';
      }
      const value = selectValues(target.options).find((v) => v !== target.currentValue);
      changed = `${String(target.id)}=${String(value)}`;
      const r = resultOf(
        await conn.request(
          'session/set_config_option',
          { sessionId: created.sessionId, configId: target.id, value },
          ctx.timeouts.request,
        ),
        `session/set_config_option ${changed}`,
      );
      const p = checkDef('SetSessionConfigOptionResponse', r);
      if (p) problems.push(`session/set_config_option result ${p}`);
      const returned = Array.isArray(r.configOptions) ? (r.configOptions as ConfigOption[]) : [];
      const missing = options.map((o) => o.id).filter((id) => !returned.some((x) => x.id === id));
      if (missing.length > 0)
        problems.push(
          `session/set_config_option must answer the complete configOptions; missing ${missing.map((m) => JSON.stringify(m)).join(', ')}`,
        );
      const now = returned.find((x) => x.id === target.id);
      if (now && now.currentValue !== value)
        problems.push(
          `the answered ${JSON.stringify(target.id)} has currentValue ${JSON.stringify(now.currentValue)}, not the value set (${JSON.stringify(value)})`,
        );
    } finally {
      await finish(conn, ctx);
    }
    failIf(problems);
    return `set ${changed}; the complete list came back`;
  },
};

/** The session surface checks. */
export const sessionSurfaceChecks: Check[] = [list, resume, close, del, modes, configOptions];
