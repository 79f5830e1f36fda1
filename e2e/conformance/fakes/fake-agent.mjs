#!/usr/bin/env node
// A tiny ACP agent for testing the conformance checks themselves. With no flaw it follows the ACP v1
// spec; FAKE_FLAW switches on exactly one deliberate violation so a test can prove a check catches it.
// FAKE_TURNS (comma list of simple|slow|permission|file) says how each successive prompt turn behaves.
// Sessions are kept as JSON files under $HOME/sessions so a second process can session/load them.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { createInterface } from 'node:readline';

const flaw = process.env.FAKE_FLAW ?? '';
const turnKinds = (process.env.FAKE_TURNS ?? '').split(',').filter(Boolean);
const store = join(process.env.HOME ?? '.', 'sessions');
mkdirSync(store, { recursive: true });

let initialized = false;
let turnIndex = 0;
let sessionCounter = 0;
let nextAgentId = 0;
/** sessionId -> the active turn: { promptId, cancelled, finish(stopReason) } */
const activeTurns = new Map();
/** agent request id -> callback for the client's response */
const awaitingClient = new Map();
const leakedCancels = new Set();

function write(msg) {
  process.stdout.write(`${JSON.stringify(msg)}\n`);
}

function respond(id, result) {
  const echoed = flaw === 'string-id-mangled' && typeof id === 'string' ? `${id}-x` : id;
  write({ jsonrpc: '2.0', id: echoed, result });
}

function respondError(id, code, message) {
  write({ jsonrpc: '2.0', id, error: { code, message } });
}

function update(sessionId, u) {
  write({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: flaw === 'update-wrong-session' ? 'other' : sessionId, update: u },
  });
}

function askClient(method, params, onResult) {
  const id = `fake-${nextAgentId++}`;
  awaitingClient.set(id, onResult);
  write({ jsonrpc: '2.0', id, method, params });
}

const sessionFile = (id) => join(store, `${id.replace(/[^a-zA-Z0-9-]/g, '_')}.json`);
const loadHistory = (id) => JSON.parse(readFileSync(sessionFile(id), 'utf8'));
const saveHistory = (id, history) => writeFileSync(sessionFile(id), JSON.stringify(history));

const text = (t) => ({ type: 'text', text: t });

function startTurn(id, sessionId, promptText) {
  const kind = turnKinds[turnIndex++] ?? 'simple';
  const turn = { cancelled: false, done: false };
  activeTurns.set(sessionId, turn);
  const history = loadHistory(sessionId);
  const reply = [];
  const say = (t) => {
    reply.push(t);
    update(sessionId, { sessionUpdate: 'agent_message_chunk', content: text(t) });
  };
  turn.finish = (stopReason) => {
    if (turn.done) return;
    turn.done = true;
    activeTurns.delete(sessionId);
    history.push({ user: promptText, agent: reply.join('') });
    saveHistory(sessionId, history);
    respond(id, { stopReason });
    if (flaw === 'update-after-cancel' && stopReason === 'cancelled') say(' (late)');
  };
  turn.cancel = () => {
    turn.cancelled = true;
    if (kind === 'slow') turn.finish(flaw === 'cancel-end-turn' ? 'end_turn' : 'cancelled');
  };
  if (leakedCancels.delete(sessionId)) {
    turn.finish('cancelled');
    return;
  }
  const stop = flaw === 'bad-stop-reason' ? 'done' : 'end_turn';
  if (kind === 'slow') {
    say('Counting slowly...');
    return;
  }
  if (kind === 'permission') {
    const toolCall = {
      toolCallId: 'call-1',
      title: 'Write conformance.txt',
      kind: 'edit',
      status: 'pending',
    };
    update(sessionId, { sessionUpdate: 'tool_call', ...toolCall });
    const options =
      flaw === 'bad-permission-request'
        ? undefined
        : [
            { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
            { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
          ];
    askClient('session/request_permission', { sessionId, toolCall, options }, (result) => {
      const outcome = result?.outcome;
      if (outcome?.outcome === 'cancelled' || turn.cancelled) {
        turn.finish(turn.cancelled && flaw !== 'permission-cancel-end-turn' ? 'cancelled' : 'end_turn');
        return;
      }
      const allowed = outcome?.optionId === 'allow';
      update(sessionId, {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-1',
        status: allowed ? 'completed' : 'failed',
      });
      say(allowed ? 'The file is written.' : 'I did not write the file.');
      turn.finish(stop);
    });
    return;
  }
  if (kind === 'file' && flaw === 'fs-unadvertised') {
    askClient('fs/read_text_file', { sessionId, path: '/tmp/README.md' }, () => {
      say('Read it.');
      turn.finish(stop);
    });
    return;
  }
  say('Hello from the fake agent.');
  setImmediate(() => turn.finish(stop));
}

function validSession(p) {
  return typeof p?.cwd === 'string' && isAbsolute(p.cwd) && Array.isArray(p.mcpServers);
}

function onRequest(id, method, params) {
  if (!initialized && method !== 'initialize') {
    if (flaw === 'silent-before-initialize') return;
    respondError(id, -32000, 'The client must call initialize first.');
    return;
  }
  switch (method) {
    case 'initialize': {
      if (!Number.isInteger(params?.protocolVersion))
        return respondError(id, -32602, 'Invalid params: protocolVersion');
      initialized = true;
      const version = flaw === 'version-2' ? 2 : Math.min(params.protocolVersion, 1);
      return respond(id, {
        protocolVersion: version,
        agentCapabilities:
          flaw === 'bad-capabilities' ? { loadSession: 'yes' } : { loadSession: flaw !== 'no-load-session' },
        ...(flaw !== 'no-agent-info' && { agentInfo: { name: 'fake-agent', version: '1.0.0' } }),
        authMethods: [],
      });
    }
    case 'session/new': {
      if (!validSession(params) && flaw !== 'no-param-validation')
        return respondError(id, -32602, 'Invalid params: cwd, mcpServers');
      const sessionId =
        flaw === 'same-session-id' ? 'fake-session' : `fake-${process.pid}-${++sessionCounter}`;
      saveHistory(sessionId, []);
      return respond(id, { sessionId });
    }
    case 'session/load': {
      if (!validSession(params) || typeof params.sessionId !== 'string')
        return respondError(id, -32602, 'Invalid params');
      if (!existsSync(sessionFile(params.sessionId)))
        return respondError(id, -32002, 'Resource not found: session');
      const replay = () => {
        for (const entry of loadHistory(params.sessionId)) {
          update(params.sessionId, { sessionUpdate: 'user_message_chunk', content: text(entry.user) });
          update(params.sessionId, { sessionUpdate: 'agent_message_chunk', content: text(entry.agent) });
        }
      };
      if (flaw === 'load-after-response') {
        respond(id, {});
        replay();
        return;
      }
      replay();
      return respond(id, {});
    }
    case 'session/prompt': {
      const ok = typeof params?.sessionId === 'string' && Array.isArray(params.prompt);
      if (!ok && flaw !== 'no-param-validation')
        return respondError(id, -32602, 'Invalid params: sessionId, prompt');
      if (!existsSync(sessionFile(String(params?.sessionId))))
        return respondError(id, -32002, 'Resource not found: session');
      const promptText = (params.prompt ?? []).map((b) => b.text ?? '').join('');
      return startTurn(id, params.sessionId, promptText);
    }
    default:
      if (method.startsWith('_') && flaw === 'ext-request-ignored') return;
      if (flaw === 'result-and-error') {
        write({ jsonrpc: '2.0', id, result: null, error: { code: -32601, message: 'Method not found' } });
        return;
      }
      return respondError(
        id,
        flaw === 'unknown-method-internal-error' ? -32603 : -32601,
        `Method not found: ${method}`,
      );
  }
}

function onNotification(method, params) {
  if (method === 'session/cancel') {
    const turn = activeTurns.get(params?.sessionId);
    if (turn) turn.cancel();
    else if (flaw === 'cancel-leaks') leakedCancels.add(params?.sessionId);
    return;
  }
  if (method.startsWith('_') && flaw === 'ext-notification-answered') {
    respondError(null, -32601, `Method not found: ${method}`);
  }
}

if (flaw === 'stdout-noise') process.stdout.write('fake agent starting up\n');

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    if (flaw !== 'parse-error-silent') respondError(null, -32700, 'Parse error');
    return;
  }
  if (typeof msg.method === 'string' && 'id' in msg) onRequest(msg.id, msg.method, msg.params);
  else if (typeof msg.method === 'string') onNotification(msg.method, msg.params);
  else if (awaitingClient.has(msg.id)) {
    const callback = awaitingClient.get(msg.id);
    awaitingClient.delete(msg.id);
    callback(msg.result);
  }
});
lines.on('close', () => {
  // Stays alive on purpose under the no-exit flaw (an agent that ignores the end of its input).
  if (flaw === 'no-exit') setInterval(() => {}, 1000);
  else process.exit(0);
});
