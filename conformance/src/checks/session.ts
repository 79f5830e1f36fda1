/** Session setup checks (ACP v1 protocol/session-setup). */
import { type Check, clip, fail, failIf, skip } from '../check.js';
import {
  chunkText,
  finish,
  indexOf,
  initialize,
  newSession,
  promptTurn,
  startSession,
  turnFrom,
  updatesAfter,
} from '../exchange.js';
import { checkDef } from '../schema.js';

const newUnique: Check = {
  id: 'session.new-unique',
  title: 'session/new returns a schema-valid result with a non-empty sessionId, distinct on each call',
  source: 'protocol/session-setup (creating a session); schema $defs/NewSessionResponse',
  level: 'mandatory',
  async run(ctx) {
    const conn = ctx.start();
    const ids: string[] = [];
    try {
      await initialize(conn, ctx);
      for (let i = 0; i < 2; i++) {
        const resp = await conn.request(
          'session/new',
          { cwd: ctx.cwd, mcpServers: [] },
          ctx.timeouts.request,
        );
        if ('error' in resp) fail(`session/new failed: ${clip(JSON.stringify(resp.error))}`);
        const p = checkDef('NewSessionResponse', resp.result);
        if (p) fail(`session/new result ${p}`);
        const id = (resp.result as { sessionId: string }).sessionId;
        if (id === '') fail('session/new returned an empty sessionId');
        ids.push(id);
      }
    } finally {
      await finish(conn, ctx);
    }
    if (ids[0] === ids[1])
      fail(`two session/new calls returned the same sessionId ${JSON.stringify(ids[0])}`);
    return `two distinct ids (${ids.map((i) => clip(i, 40)).join(', ')})`;
  },
};

/** Update kinds that carry conversation history. */
const HISTORY_KINDS = new Set([
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);

function kindOf(p: Record<string, unknown>): unknown {
  return (p.update as { sessionUpdate?: unknown } | undefined)?.sessionUpdate;
}

const loadReplay: Check = {
  id: 'session.load-replay',
  title:
    'session/load (when declared) replays the conversation as session/update notifications before it responds',
  source: 'protocol/session-setup (loading sessions); schema $defs/LoadSessionResponse',
  level: 'capability',
  turns: ['simple'],
  async run(ctx) {
    const promptText = 'Remember the word PAPAYA for the conformance check.';
    const first = await startSession(ctx, 'first process');
    let sessionId: string;
    let originalAgentText: string;
    try {
      const caps = first.init.agentCapabilities as { loadSession?: unknown } | undefined;
      if (caps?.loadSession !== true) skip('the agent does not declare agentCapabilities.loadSession');
      sessionId = first.sessionId;
      const turn = await promptTurn(first.conn, ctx, sessionId, promptText);
      originalAgentText = chunkText(turn.updates);
    } finally {
      await finish(first.conn, ctx);
    }

    const conn = ctx.start('second process (session/load)');
    let loadIndex: number;
    let replay: Record<string, unknown>[];
    try {
      await initialize(conn, ctx);
      const from = conn.inbound.length;
      const resp = await conn.request(
        'session/load',
        { sessionId, cwd: ctx.cwd, mcpServers: [] },
        ctx.timeouts.turn,
      );
      if ('error' in resp) fail(`session/load failed: ${clip(JSON.stringify(resp.error), 300)}`);
      const p = checkDef('LoadSessionResponse', resp.result);
      if (p) fail(`session/load result ${p}`);
      loadIndex = indexOf(conn, resp);
      replay = turnFrom(conn, from, resp).updates.filter((u) => u.sessionId === sessionId);
      // Something after the response proves the agent is still serving; then stdin closes, so every late
      // update it would send is on the transcript before the verdict.
      await newSession(conn, ctx);
    } finally {
      await finish(conn, ctx);
    }
    const late = updatesAfter(conn, loadIndex, sessionId).filter((u) =>
      HISTORY_KINDS.has(kindOf(u) as string),
    );
    const problems: string[] = [];
    if (late.length > 0)
      problems.push(
        `${late.length} history update(s) arrived after the session/load response (first: ${String(kindOf(late[0]!))})`,
      );
    const userText = chunkText(replay, 'user_message_chunk');
    if (!userText.includes(promptText)) {
      problems.push(
        `the replay before the response has no user_message_chunk with the prompt text (user text seen: ${JSON.stringify(clip(userText, 80))})`,
      );
    }
    // The model's text must come back; notices the agent added to the live turn (codex-acp warns about
    // unknown model metadata) are its own, not conversation. Unknown model text: the original's must.
    const agentText = chunkText(replay);
    const modelText =
      ctx.modelText !== undefined && originalAgentText.includes(ctx.modelText) ? ctx.modelText : undefined;
    const expected = modelText ?? originalAgentText;
    if (expected !== '' && !agentText.includes(expected)) {
      problems.push(
        `the replayed agent text ${JSON.stringify(clip(agentText, 80))} does not contain the ${modelText ? "model's text" : "original turn's text"} ${JSON.stringify(clip(expected, 80))}`,
      );
    }
    failIf(problems);
    return `${replay.length} updates replayed before the response (${[...new Set(replay.map(kindOf))].join(', ')})`;
  },
};

/** Session setup checks. */
export const sessionChecks: Check[] = [newUnique, loadReplay];
