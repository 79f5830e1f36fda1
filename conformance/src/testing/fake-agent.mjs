#!/usr/bin/env node
import { spawn } from 'node:child_process';
// A tiny ACP agent for testing the conformance checks themselves. With no flaw it follows the ACP v1
// spec; FAKE_FLAW switches on exactly one deliberate violation so a test can prove a check catches it.
// FAKE_TURNS (comma list of simple|slow|permission|file) says how each successive prompt turn behaves.
// Traits of real agents the kit must not mistake for violations (FAKE_FLAW values too): late-session-updates
// (available_commands_update and current_mode_update after every prompt response, as the spec allows),
// first-run-only (initialize fails when this HOME was used by an earlier process, like an agent whose
// first run changes its state), latest-v2 (answers a request for a newer version with 2, in the v2 shape),
// session-updates-first (a prompt first gets session-level updates, and the turn starts ~100 ms later: a
// cancel or close before then is lost, as with an agent whose model call has not started), no-tool-call (the
// file turn answers without calling a tool), live-notice (a live turn adds a notice that a replay does not
// repeat), orphan-child (initialize starts a child in the agent's process group that outlives it, prints
// "orphan pid N" on stderr and later writes into HOME). FAKE_MODEL_URL: each prompt first POSTs to that URL. Always: an inherited FAKE_POISON breaks session/new (as an inherited
// variable broke a real agent's), and $HOME/.fake/agent-name, when a profile places it, names the agent.
// Sessions are kept as JSON files under $HOME/sessions ({cwd, history, modeId, model}) so a second process
// can session/load or session/resume them, and session/list can list them.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const loadSession = (id) => JSON.parse(readFileSync(sessionFile(id), 'utf8'));
const saveSession = (id, session) => writeFileSync(sessionFile(id), JSON.stringify(session));
const loadHistory = (id) => loadSession(id).history;
const saveHistory = (id, history) => saveSession(id, { ...loadSession(id), history });

const MODES = [
  { id: 'ask', name: 'Ask' },
  { id: 'auto', name: 'Auto' },
];
const MODELS = ['small', 'large'];
const modeState = (s) => ({
  currentModeId: flaw === 'mode-unavailable' ? 'missing' : s.modeId,
  availableModes: MODES,
});
const configOptions = (s) => [
  {
    type: 'select',
    id: 'mode',
    name: 'Mode',
    category: 'mode',
    currentValue: s.modeId,
    options: MODES.map((m) => ({ value: m.id, name: m.name })),
  },
  {
    type: 'select',
    id: 'model',
    name: 'Model',
    category: 'model',
    currentValue: s.model,
    options: MODELS.map((m) => ({ value: m, name: m })),
  },
];
const setup = (s) => ({ modes: modeState(s), configOptions: configOptions(s) });
/** Every stored session (sessionId, cwd), in a stable order. */
const storedSessions = () =>
  readdirSync(store)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({
      sessionId: f.slice(0, -'.json'.length),
      cwd: loadSession(f.slice(0, -'.json'.length)).cwd,
    }));

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
    if (flaw === 'late-session-updates') {
      update(sessionId, {
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'conformance', description: 'a command advertised late' }],
      });
      update(sessionId, {
        sessionUpdate: 'current_mode_update',
        currentModeId: loadSession(sessionId).modeId,
      });
    }
  };
  turn.cancel = () => {
    turn.cancelled = true;
    if (kind === 'slow') turn.finish(flaw === 'cancel-end-turn' ? 'end_turn' : 'cancelled');
  };
  // session/close: cancels the turn like session/cancel.
  turn.close = () => {
    turn.cancelled = true;
    if (kind === 'slow') turn.finish(flaw === 'close-end-turn' ? 'end_turn' : 'cancelled');
  };
  if (leakedCancels.delete(sessionId)) {
    turn.finish('cancelled');
    return;
  }
  const stop = flaw === 'bad-stop-reason' ? 'done' : 'end_turn';
  if (flaw === 'live-notice')
    update(sessionId, { sessionUpdate: 'agent_message_chunk', content: text('Notice: live turns only. ') });
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
  if (kind === 'file' && flaw !== 'no-tool-call') {
    const read = { toolCallId: 'call-read', title: 'Read README.md', kind: 'read' };
    update(sessionId, { sessionUpdate: 'tool_call', ...read, status: 'in_progress' });
    const done = () => {
      update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: 'call-read', status: 'completed' });
      say('Read it.');
      turn.finish(stop);
    };
    if (flaw === 'fs-unadvertised')
      askClient('fs/read_text_file', { sessionId, path: '/tmp/README.md' }, done);
    else setImmediate(done);
    return;
  }
  say('Hello from the fake agent.');
  setImmediate(() => turn.finish(stop));
}

function validSession(p) {
  return typeof p?.cwd === 'string' && isAbsolute(p.cwd) && Array.isArray(p.mcpServers);
}

function agentName() {
  const file = join(process.env.HOME ?? '.', '.fake', 'agent-name');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : 'fake-agent';
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
      const ran = join(process.env.HOME ?? '.', '.fake-ran');
      if (flaw === 'first-run-only' && existsSync(ran))
        return respondError(id, -32603, `fake agent: ${ran} exists, this HOME was used by an earlier check`);
      writeFileSync(ran, `${process.pid}\n`);
      initialized = true;
      if (flaw === 'orphan-child') {
        const late = `setTimeout(() => { require('fs').mkdirSync(process.env.HOME, { recursive: true }); require('fs').writeFileSync(require('path').join(process.env.HOME, 'late.txt'), 'late'); }, 3000)`;
        const child = spawn(process.execPath, ['-e', late], { stdio: 'ignore' });
        process.stderr.write(`orphan pid ${child.pid}\n`);
        child.unref();
      }
      const version = flaw === 'version-2' ? 2 : Math.min(params.protocolVersion, 1);
      // latest-v2 (a trait): supports v1 and v2 and answers a newer request with 2, in the v2 shape.
      if (flaw === 'latest-v2' && params.protocolVersion >= 2)
        return respond(id, {
          protocolVersion: 2,
          info: { name: agentName(), version: '1.0.0' },
          capabilities: {},
        });
      return respond(id, {
        protocolVersion: version,
        agentCapabilities:
          flaw === 'bad-capabilities'
            ? { loadSession: 'yes' }
            : {
                loadSession: flaw !== 'no-load-session',
                ...(flaw !== 'no-session-capabilities' && {
                  sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
                }),
              },
        ...(flaw !== 'no-agent-info' && { agentInfo: { name: agentName(), version: '1.0.0' } }),
        authMethods: [],
      });
    }
    case 'session/new': {
      if (process.env.FAKE_POISON !== undefined)
        return respondError(
          id,
          -32603,
          `fake agent: the inherited FAKE_POISON=${process.env.FAKE_POISON} broke session/new`,
        );
      if (!validSession(params) && flaw !== 'no-param-validation')
        return respondError(id, -32602, 'Invalid params: cwd, mcpServers');
      const sessionId =
        flaw === 'same-session-id' ? 'fake-session' : `fake-${process.pid}-${++sessionCounter}`;
      const session = { cwd: params.cwd, history: [], modeId: 'ask', model: 'small' };
      saveSession(sessionId, session);
      if (flaw === 'no-session-capabilities') return respond(id, { sessionId });
      return respond(id, { sessionId, ...setup(session) });
    }
    case 'session/load': {
      if (!validSession(params) || typeof params.sessionId !== 'string')
        return respondError(id, -32602, 'Invalid params');
      if (!existsSync(sessionFile(params.sessionId)))
        return respondError(id, -32002, 'Resource not found: session');
      const replay = () => {
        for (const entry of loadHistory(params.sessionId)) {
          update(params.sessionId, { sessionUpdate: 'user_message_chunk', content: text(entry.user) });
          const agent = flaw === 'load-drops-agent-text' ? '' : entry.agent;
          update(params.sessionId, { sessionUpdate: 'agent_message_chunk', content: text(agent) });
        }
      };
      if (flaw === 'load-after-response') {
        respond(id, {});
        replay();
        return;
      }
      replay();
      return respond(id, setup(loadSession(params.sessionId)));
    }
    case 'session/resume': {
      if (typeof params?.cwd !== 'string' || typeof params.sessionId !== 'string')
        return respondError(id, -32602, 'Invalid params');
      if (!existsSync(sessionFile(params.sessionId)))
        return respondError(id, -32002, 'Resource not found: session');
      const session = loadSession(params.sessionId);
      if (flaw === 'resume-replays')
        for (const entry of session.history)
          update(params.sessionId, { sessionUpdate: 'user_message_chunk', content: text(entry.user) });
      return respond(id, setup(session));
    }
    case 'session/list': {
      const all = storedSessions();
      const cwd = params?.cwd;
      const matching = cwd == null || flaw === 'list-ignores-cwd' ? all : all.filter((s) => s.cwd === cwd);
      // One session a page, so the cursor is exercised.
      const start = params?.cursor == null ? 0 : Number(params.cursor);
      if (!Number.isInteger(start) || start < 0) return respondError(id, -32602, 'Invalid params: cursor');
      const page = matching.slice(start, start + 1);
      return respond(id, {
        sessions: page,
        ...(start + 1 < matching.length && { nextCursor: String(start + 1) }),
      });
    }
    case 'session/close': {
      const turn = activeTurns.get(params?.sessionId);
      if (turn) turn.close();
      return respond(id, {});
    }
    case 'session/delete': {
      if (typeof params?.sessionId === 'string' && flaw !== 'delete-keeps-listing')
        rmSync(sessionFile(params.sessionId), { force: true });
      return respond(id, {});
    }
    case 'session/set_mode': {
      if (!existsSync(sessionFile(String(params?.sessionId))))
        return respondError(id, -32002, 'Resource not found: session');
      const session = loadSession(params.sessionId);
      if (!MODES.some((m) => m.id === params.modeId))
        return respondError(id, -32602, 'Invalid params: modeId');
      saveSession(params.sessionId, { ...session, modeId: params.modeId });
      update(params.sessionId, { sessionUpdate: 'current_mode_update', currentModeId: params.modeId });
      return respond(id, {});
    }
    case 'session/set_config_option': {
      if (!existsSync(sessionFile(String(params?.sessionId))))
        return respondError(id, -32002, 'Resource not found: session');
      const session = loadSession(params.sessionId);
      const key = params.configId === 'mode' ? 'modeId' : params.configId === 'model' ? 'model' : undefined;
      if (!key) return respondError(id, -32602, 'Invalid params: configId');
      const next = { ...session, [key]: params.value };
      saveSession(params.sessionId, next);
      const all = configOptions(next);
      return respond(id, {
        configOptions: flaw === 'config-partial' ? all.filter((o) => o.id === params.configId) : all,
      });
    }
    case 'session/prompt': {
      const ok = typeof params?.sessionId === 'string' && Array.isArray(params.prompt);
      if (!ok && flaw !== 'no-param-validation')
        return respondError(id, -32602, 'Invalid params: sessionId, prompt');
      if (!existsSync(sessionFile(String(params?.sessionId))))
        return respondError(id, -32002, 'Resource not found: session');
      const promptText = (params.prompt ?? []).map((b) => b.text ?? '').join('');
      // FAKE_MODEL_URL: ask a model first (the answer is ignored), as an agent with a model would.
      const model = process.env.FAKE_MODEL_URL;
      if (model) {
        const body = JSON.stringify({ messages: [{ role: 'user', content: promptText }], stream: false });
        return void fetch(model, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
          .then((r) => r.text())
          .catch(() => '')
          .then(() => startTurn(id, params.sessionId, promptText));
      }
      if (flaw === 'session-updates-first') {
        update(params.sessionId, {
          sessionUpdate: 'available_commands_update',
          availableCommands: [{ name: 'conformance', description: 'a command' }],
        });
        update(params.sessionId, { sessionUpdate: 'session_info_update', title: 'A conformance turn' });
        return void setTimeout(() => startTurn(id, params.sessionId, promptText), 100);
      }
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
