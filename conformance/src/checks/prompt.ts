/** Prompt turn checks (ACP v1 protocol/prompt-turn, file-system, terminals). */
import { type Check, type CheckContext, clip, fail, failIf, skip } from '../check.js';
import {
  finish,
  indexOf,
  progressOrResponse,
  promptTurn,
  resultOf,
  startSession,
  textPrompt,
  toolCalls,
  turnUpdatesAfter,
} from '../exchange.js';
import { checkDef, stopReasons } from '../schema.js';
import { type AgentConnection, isAgentRequest, WaitError } from '../wire.js';

const stopReason: Check = {
  id: 'prompt.stop-reason',
  title: 'a prompt turn ends with a successful response whose stopReason is a defined StopReason',
  source: 'protocol/prompt-turn (stop reasons); schema $defs/PromptResponse, StopReason',
  level: 'mandatory',
  turns: ['simple'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startSession(ctx);
    let result: Record<string, unknown>;
    try {
      const turn = await promptTurn(conn, ctx, sessionId, 'Say hello in one short sentence.');
      result = resultOf(turn.response, 'session/prompt');
    } finally {
      await finish(conn, ctx);
    }
    const valid = stopReasons();
    if (!valid.includes(result.stopReason as string)) {
      fail(`stopReason ${JSON.stringify(result.stopReason)} is not one of ${valid.join(', ')}`);
    }
    return `stopReason ${String(result.stopReason)}`;
  },
};

const updateSessionId: Check = {
  id: 'prompt.update-session-id',
  title: 'every session/update of a turn is schema-valid and carries the prompted sessionId',
  source: 'protocol/prompt-turn (agent reports output); schema $defs/SessionNotification',
  level: 'mandatory',
  turns: ['simple'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startSession(ctx);
    let updates: Record<string, unknown>[];
    try {
      updates = (await promptTurn(conn, ctx, sessionId, 'Say hello in one short sentence.')).updates;
    } finally {
      await finish(conn, ctx);
    }
    const problems: string[] = [];
    updates.forEach((u, i) => {
      if (u.sessionId !== sessionId)
        problems.push(
          `update ${i + 1} has sessionId ${JSON.stringify(u.sessionId)}, not ${JSON.stringify(sessionId)}`,
        );
      const p = checkDef('SessionNotification', u);
      if (p) problems.push(`update ${i + 1} ${p}`);
    });
    failIf(problems);
    return updates.length === 0
      ? 'no updates during the turn (allowed)'
      : `${updates.length} updates, all for the session`;
  },
};

/**
 * Starts a turn and cancels it once it shows progress (an update or a permission request), or after the
 * progress deadline if it shows none. Returns the prompt response and where it is on the transcript.
 */
async function cancelTurn(
  conn: AgentConnection,
  ctx: CheckContext,
  sessionId: string,
  text: string,
  waitForPermission: boolean,
): Promise<{
  response: Record<string, unknown>;
  responseIndex: number;
  settled: number;
}> {
  const from = conn.inbound.length;
  const promptId = conn.sendRequest('session/prompt', textPrompt(sessionId, text));
  const ready = waitForPermission
    ? (m: Record<string, unknown>) =>
        isAgentRequest(m, 'session/request_permission') ||
        ('id' in m && m.id === promptId && !('method' in m))
    : progressOrResponse(promptId, sessionId);
  const first = await conn
    .waitFor(ready, 'a sign the turn is running', ctx.timeouts.progress, from)
    .catch((e) => {
      if (e instanceof WaitError && !conn.exit) return undefined;
      throw e;
    });
  if (first && 'id' in first && first.id === promptId && !('method' in first)) {
    skip(
      `the turn ended (${clip(JSON.stringify(first.result ?? first.error), 80)}) before a cancel could be sent`,
    );
  }
  if (waitForPermission && !first) skip('the agent asked for no permission during the turn');
  conn.notify('session/cancel', { sessionId });
  // The client MUST answer every pending permission request of the session with `cancelled`.
  const settled = conn.settleHeldPermissions();
  // A permission request already on its way when the agent got the cancel is settled the same way.
  conn.permissionPolicy = 'cancelled';
  const response = await conn.response(
    promptId,
    'the session/prompt response after session/cancel',
    ctx.timeouts.turn,
  );
  return { response, responseIndex: indexOf(conn, response), settled };
}

function cancelVerdict(
  conn: AgentConnection,
  sessionId: string,
  r: { response: Record<string, unknown>; responseIndex: number },
): string[] {
  const problems: string[] = [];
  if ('error' in r.response) {
    problems.push(
      `the prompt ended with an error instead of stopReason "cancelled": ${clip(JSON.stringify(r.response.error))}`,
    );
  } else {
    const reason = (r.response.result as { stopReason?: unknown } | undefined)?.stopReason;
    if (reason !== 'cancelled') problems.push(`stopReason ${JSON.stringify(reason)}, expected "cancelled"`);
  }
  const late = turnUpdatesAfter(conn, r.responseIndex, sessionId);
  if (late.length > 0) {
    const kind = (late[0]!.update as { sessionUpdate?: unknown } | undefined)?.sessionUpdate;
    problems.push(
      `${late.length} session/update(s) arrived after the prompt response (first: ${String(kind)})`,
    );
  }
  return problems;
}

const cancel: Check = {
  id: 'prompt.cancel',
  title:
    'session/cancel during a turn ends it with stopReason "cancelled" and no update follows the response',
  source: 'protocol/prompt-turn (cancellation)',
  level: 'mandatory',
  turns: ['slow'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startSession(ctx);
    let r: Awaited<ReturnType<typeof cancelTurn>>;
    try {
      conn.permissionPolicy = 'hold';
      r = await cancelTurn(conn, ctx, sessionId, 'Count slowly from one to one thousand.', false);
    } finally {
      await finish(conn, ctx);
    }
    failIf(cancelVerdict(conn, sessionId, r));
    return `stopReason cancelled; nothing after the response${r.settled ? ` (${r.settled} permission request settled)` : ''}`;
  },
};

const cancelPermission: Check = {
  id: 'prompt.cancel-permission',
  title:
    'session/cancel while a permission request is pending: the client settles it as cancelled and the turn ends "cancelled"',
  source: 'protocol/prompt-turn (cancellation: pending session/request_permission answered with cancelled)',
  level: 'mandatory',
  turns: ['permission'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startSession(ctx);
    let r: Awaited<ReturnType<typeof cancelTurn>>;
    try {
      conn.permissionPolicy = 'hold';
      r = await cancelTurn(
        conn,
        ctx,
        sessionId,
        'Create a file named conformance.txt containing the word ok.',
        true,
      );
    } finally {
      await finish(conn, ctx);
    }
    failIf(cancelVerdict(conn, sessionId, r));
    return `${r.settled} pending permission request(s) settled; stopReason cancelled; nothing after the response`;
  },
};

const cancelNoLeak: Check = {
  id: 'prompt.cancel-no-leak',
  title: 'a session/cancel sent after a turn ended does not cancel the next turn',
  source: 'protocol/prompt-turn (cancellation applies to the ongoing turn)',
  level: 'mandatory',
  turns: ['simple', 'simple'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startSession(ctx);
    let reasons: unknown[];
    try {
      const one = await promptTurn(conn, ctx, sessionId, 'Say hello in one short sentence.');
      conn.notify('session/cancel', { sessionId });
      const two = await promptTurn(conn, ctx, sessionId, 'Say goodbye in one short sentence.');
      reasons = [one, two].map((t, i) => resultOf(t.response, `session/prompt ${i + 1}`).stopReason);
    } finally {
      await finish(conn, ctx);
    }
    if (reasons[0] === 'cancelled') fail('the first turn ended "cancelled" although nothing cancelled it');
    if (reasons[1] === 'cancelled')
      fail('the turn after a late session/cancel ended "cancelled": the cancel leaked into it');
    return `stopReasons ${reasons.join(', ')}`;
  },
};

const noUnadvertisedCalls: Check = {
  id: 'client.no-fs-terminal',
  title: 'no fs/* or terminal/* request when the client advertised neither capability',
  source: 'protocol/file-system, protocol/terminals (only if the client advertises the capability)',
  level: 'mandatory',
  turns: ['file'],
  judgesTurns: true,
  async run(ctx) {
    const { conn, sessionId } = await startSession(ctx);
    let turn: Awaited<ReturnType<typeof promptTurn>>;
    try {
      turn = await promptTurn(
        conn,
        ctx,
        sessionId,
        'Read the file README.md and summarize it in one sentence.',
      );
    } finally {
      await finish(conn, ctx);
    }
    const fs = conn.clientCapabilities.fs;
    const advertised = (method: string) =>
      (method === 'fs/read_text_file' && fs.readTextFile) ||
      (method === 'fs/write_text_file' && fs.writeTextFile);
    const calls = conn.capabilityCalls.map((c) => c.method).filter((m) => !advertised(m));
    if (calls.length > 0)
      fail(
        `the agent called ${[...new Set(calls)].join(', ')} (${calls.length} request(s)) although the client did not advertise it (clientCapabilities ${JSON.stringify(conn.clientCapabilities)})`,
      );
    // Without a tool call the turn never had a reason to read a file: no request proves nothing.
    if (toolCalls(turn.updates).length === 0 && conn.capabilityCalls.length === 0)
      skip('the agent called no tool during the turn, so it had no reason to read a file');
    return `no unadvertised fs/* or terminal/* requests (${toolCalls(turn.updates).length} tool call(s))`;
  },
};

/** Prompt turn checks. */
export const promptChecks: Check[] = [
  stopReason,
  updateSessionId,
  cancel,
  cancelPermission,
  cancelNoLeak,
  noUnadvertisedCalls,
];
