#!/usr/bin/env node
// A small real ACP agent answering v2 and v1 through the SDK's protocol router, for the driver's v2 tests.
// On v2 each prompt's text says what the turn does: "tool <file>" asks permission for a tool call
// (tool_call_update creates it, subject tool_call) and on allow writes <file> in the session cwd; "wait"
// streams a chunk and waits for session/cancel (idle `cancelled`); "broken" sends a chunk without
// messageId, an upsert for a message nobody created, and a second idle; anything else is answered
// "You said: <text>" in chunks split inside an emoji. Message ids are random per run (as codex mints
// them), so only normalization makes a snapshot stable. session/resume with replayFrom {type: "start"}
// replays the session's messages as upserts. On v1 it answers initialize and session/new only.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import * as acp2 from '@agentclientprotocol/sdk/experimental/v2';

/** sessionId -> { cwd, history: upserts to replay, cancel: resolves the waiting turn } */
const sessions = new Map();
let toolCalls = 0;
const update = (client, sessionId, u) => client.notify('session/update', { sessionId, update: u });
const raw = (sessionId, u) =>
  process.stdout.write(
    `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } })}\n`,
  );

async function turn(client, sessionId, text) {
  const s = sessions.get(sessionId);
  const state = (st, extra = {}) =>
    update(client, sessionId, { sessionUpdate: 'state_update', state: st, ...extra });
  await state('running');
  const messageId = randomUUID();
  const say = async (pieces) => {
    for (const piece of pieces)
      await update(client, sessionId, {
        sessionUpdate: 'agent_message_chunk',
        messageId,
        content: { type: 'text', text: piece },
      });
    s.history.push({
      sessionUpdate: 'agent_message',
      messageId,
      content: [{ type: 'text', text: pieces.join('') }],
    });
  };
  if (text.startsWith('tool ')) {
    const file = text.slice(5);
    // A model names its tool calls: replayed, the ids are the recording's (only message ids are minted).
    const toolCallId = `call_${++toolCalls}`;
    const title = `Write ${file}`;
    await update(client, sessionId, {
      sessionUpdate: 'tool_call_update',
      toolCallId,
      title,
      kind: 'edit',
      status: 'pending',
      locations: [{ path: join(s.cwd, file) }],
    });
    await state('requires_action');
    const answer = await client.request('session/request_permission', {
      sessionId,
      title,
      subject: { type: 'tool_call', toolCall: { toolCallId, title } },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    await state('running');
    const allowed = answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'allow';
    if (allowed) writeFileSync(join(s.cwd, file), 'written by the v2 agent\n');
    await update(client, sessionId, {
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: allowed ? 'completed' : 'failed',
    });
    await say([allowed ? `Wrote ${file}.` : `Not allowed to write ${file}.`]);
    return state('idle', { stopReason: 'end_turn' });
  }
  if (text === 'wait') {
    await say(['Working…']);
    await new Promise((resolve) => {
      s.cancel = resolve;
    });
    return state('idle', { stopReason: 'cancelled' });
  }
  if (text === 'broken') {
    raw(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'no id' } });
    raw(sessionId, { sessionUpdate: 'agent_message', messageId: 'nobody-made-me' });
    raw(sessionId, { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    raw(sessionId, { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' });
    return;
  }
  const answer = `You said: ${text} 👋🏽`;
  // Split inside the emoji's surrogate pair's neighbourhood: at code points, not at graphemes.
  const cps = [...answer];
  await say([cps.slice(0, 4).join(''), cps.slice(4, -1).join(''), cps.at(-1)]);
  return state('idle', { stopReason: 'end_turn' });
}

const v2 = acp2
  .agent({ name: 'v2-agent' })
  .onRequest('initialize', () => ({
    protocolVersion: 2,
    info: { name: 'v2-agent', version: '0.0.1' },
    capabilities: { session: {} },
  }))
  .onRequest('session/new', ({ params }) => {
    const sessionId = `sess_${randomUUID()}`;
    sessions.set(sessionId, { cwd: params.cwd, history: [] });
    return { sessionId };
  })
  .onRequest('session/list', () => ({
    sessions: [...sessions].map(([sessionId, s]) => ({ sessionId, cwd: s.cwd })),
  }))
  .onRequest('session/close', ({ params }) => {
    sessions.delete(params.sessionId);
    return {};
  })
  .onRequest('session/resume', async ({ params, client }) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw acp2.RequestError.resourceNotFound(params.sessionId);
    if (params.replayFrom?.type === 'start')
      for (const u of s.history) await update(client, params.sessionId, u);
    return {};
  })
  .onRequest('session/prompt', ({ params, client }) => {
    const text = params.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const messageId = randomUUID();
    sessions
      .get(params.sessionId)
      .history.push({ sessionUpdate: 'user_message', messageId, content: params.prompt });
    // The response acknowledges; the turn runs after it and ends with the idle state update.
    setImmediate(() => void turn(client, params.sessionId, text));
    return { messageId };
  })
  .onNotification('session/cancel', ({ params }) => {
    sessions.get(params.sessionId)?.cancel?.();
  });

const v1 = acp
  .agent({ name: 'v2-agent-v1' })
  .onRequest('initialize', () => ({
    protocolVersion: 1,
    agentCapabilities: {},
    agentInfo: { name: 'v2-agent', version: '0.0.1' },
  }))
  .onRequest('session/new', () => ({ sessionId: `sess_${randomUUID()}` }));

const router = acp2.agentProtocolRouter().withV1(v1);
if (process.argv[2] !== 'v1-only') router.withV2(v2);
const connection = router.connect(
  acp2.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
