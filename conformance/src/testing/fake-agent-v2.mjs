#!/usr/bin/env node
// A tiny ACP v2 agent for testing the v2 conformance checks themselves. With no flaw it follows the v2 spec
// (prompt acknowledged with {messageId}, the user message echoed, running, output keyed by messageId, idle with
// the stop reason; session/list, resume with and without replay, close; auth/login and auth/logout); FAKE_FLAW
// switches on exactly one deliberate violation so a test can prove a check catches it. FAKE_TURNS (comma list of
// simple|slow|permission|file) says how each successive prompt turn behaves. Sessions are JSON files under
// $HOME/sessions so a second process can resume them.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const flaw = process.env.FAKE_FLAW ?? '';
const turnKinds = (process.env.FAKE_TURNS ?? '').split(',').filter(Boolean);
const store = join(process.env.HOME ?? '.', 'sessions');
mkdirSync(store, { recursive: true });

let turnIndex = 0;
let counter = 0;
let nextAgentId = 0;
/** sessionId -> { finish(stopReason) } of the running work */
const active = new Map();
const awaitingClient = new Map();

const write = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const respond = (id, result) => write({ jsonrpc: '2.0', id, result });
const respondError = (id, code, message) => write({ jsonrpc: '2.0', id, error: { code, message } });
const update = (sessionId, u) =>
  write({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } });
const state = (sessionId, s, stopReason) =>
  update(sessionId, { sessionUpdate: 'state_update', state: s, ...(stopReason && { stopReason }) });
const file = (id) => join(store, `${id}.json`);
const load = (id) => JSON.parse(readFileSync(file(id), 'utf8'));
const save = (id, s) => writeFileSync(file(id), JSON.stringify(s));
const mid = (prefix) => `${prefix}-${process.pid}-${counter++}`;

function askClient(method, params, onResult) {
  const id = `fake-${nextAgentId++}`;
  awaitingClient.set(id, onResult);
  write({ jsonrpc: '2.0', id, method, params });
}

function initialize(id) {
  if (flaw === 'v1-only') {
    respond(id, {
      protocolVersion: 1,
      agentCapabilities: { loadSession: false },
      agentInfo: { name: 'fake-v1', version: '1' },
    });
    return;
  }
  const prompt = flaw === 'boolean-markers' ? { image: true } : { image: {} };
  respond(id, {
    protocolVersion: 2,
    ...(flaw !== 'no-info' && { info: { name: 'fake-agent-v2', version: '0.0.1' } }),
    capabilities: { session: { prompt, mcp: { stdio: {} } } },
    authMethods: [{ methodId: 'fake-login', type: 'agent', name: 'Fake login' }],
  });
}

/** Runs one prompt: acknowledges, echoes, reports running, answers by the turn kind, ends idle. */
function prompt(id, params) {
  const { sessionId } = params;
  const kind = turnKinds[turnIndex++] ?? 'simple';
  const session = load(sessionId);
  const userId = mid('user');
  const text = params.prompt?.[0]?.text ?? '';
  const ack = () => respond(id, flaw === 'ack-no-message-id' ? {} : { messageId: userId });
  if (flaw !== 'ack-after-idle') ack();
  update(sessionId, { sessionUpdate: 'user_message', messageId: userId, content: [{ type: 'text', text }] });
  if (flaw !== 'no-running') state(sessionId, 'running');
  const agentId = mid('agent');
  const say = (t) =>
    update(sessionId, {
      sessionUpdate: 'agent_message_chunk',
      ...(flaw !== 'chunk-no-message-id' && { messageId: agentId }),
      content: { type: 'text', text: t },
    });
  let done = false;
  const finish = (stopReason) => {
    if (done) return;
    done = true;
    active.delete(sessionId);
    session.history.push({ user: text, agent: 'Hello from the fake agent.' });
    save(sessionId, session);
    state(sessionId, 'idle', stopReason);
    if (flaw === 'ack-after-idle') ack();
    if (stopReason === 'cancelled' && flaw === 'update-after-cancel-idle') say('late words');
  };
  active.set(sessionId, { finish });
  if (kind === 'slow') {
    say('One,');
    return; // stalls until cancelled or closed
  }
  if (kind === 'file' || kind === 'permission') {
    const callId = mid('call');
    if (flaw === 'v1-tool-call')
      update(sessionId, {
        sessionUpdate: 'tool_call',
        toolCallId: callId,
        title: 'Read README.md',
        status: 'pending',
      });
    else
      update(sessionId, {
        sessionUpdate: 'tool_call_update',
        toolCallId: callId,
        title: 'Read README.md',
        kind: 'read',
        status: 'pending',
      });
    if (flaw === 'orphan-content-chunk')
      update(sessionId, {
        sessionUpdate: 'tool_call_content_chunk',
        toolCallId: 'never-created',
        content: { type: 'content', content: { type: 'text', text: 'x' } },
      });
    const complete = () => {
      update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'completed' });
      say('Hello from the fake agent.');
      finish('end_turn');
    };
    if (flaw === 'fs-call') {
      askClient('fs/read_text_file', { sessionId, path: join(session.cwd, 'README.md') }, complete);
      return;
    }
    if (kind === 'permission') {
      askClient(
        'session/request_permission',
        {
          sessionId,
          title: 'Write conformance.txt?',
          subject: { type: 'tool_call', toolCall: { toolCallId: callId } },
          options: [
            { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
            { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
          ],
        },
        complete,
      );
      return;
    }
    complete();
    return;
  }
  say('Hello from the fake agent.');
  finish('end_turn');
}

function replay(sessionId, history) {
  if (flaw === 'replay-empty') return;
  for (const h of history) {
    update(sessionId, {
      sessionUpdate: 'user_message',
      messageId: mid('user'),
      content: [{ type: 'text', text: h.user }],
    });
    update(sessionId, {
      sessionUpdate: 'agent_message',
      messageId: mid('agent'),
      content: [{ type: 'text', text: h.agent }],
    });
  }
}

function handle(msg) {
  if (!('method' in msg)) {
    const cb = awaitingClient.get(msg.id);
    awaitingClient.delete(msg.id);
    cb?.(msg);
    return;
  }
  const { id, method, params = {} } = msg;
  switch (method) {
    case 'initialize':
      return initialize(id);
    case 'session/new': {
      const sessionId = mid('session');
      save(sessionId, { cwd: params.cwd, history: [] });
      return respond(id, { sessionId });
    }
    case 'session/list': {
      if (flaw === 'no-list') return respondError(id, -32601, 'Method not found: session/list');
      const sessions = readdirSync(store)
        .map((f) => ({
          sessionId: f.replace(/\.json$/, ''),
          cwd: JSON.parse(readFileSync(join(store, f), 'utf8')).cwd,
        }))
        .filter((s) => flaw === 'list-ignores-cwd' || params.cwd === undefined || s.cwd === params.cwd);
      return respond(id, { sessions });
    }
    case 'session/resume': {
      const session = load(params.sessionId);
      if (params.replayFrom?.type === 'start' || flaw === 'resume-replays')
        replay(params.sessionId, session.history);
      if (flaw !== 'resume-no-state') state(params.sessionId, 'idle');
      return respond(id, {});
    }
    case 'session/close': {
      const work = active.get(params.sessionId);
      respond(id, {});
      return work?.finish(flaw === 'close-no-cancel' ? 'end_turn' : 'cancelled');
    }
    case 'session/prompt':
      return prompt(id, params);
    case 'session/cancel':
      return active.get(params.sessionId)?.finish(flaw === 'cancel-end-turn' ? 'end_turn' : 'cancelled');
    case 'auth/login':
      return respondError(id, -32602, `Invalid params: no auth method ${params.methodId}`);
    case 'auth/logout':
      if (flaw === 'no-logout') return respondError(id, -32601, 'Method not found: auth/logout');
      return respond(id, {});
    default:
      if (id !== undefined) respondError(id, -32601, `Method not found: ${method}`);
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim()) handle(JSON.parse(line));
});
