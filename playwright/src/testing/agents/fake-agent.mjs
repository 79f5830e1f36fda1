#!/usr/bin/env node
// A small real ACP agent (SDK over stdio) for the driver's unit tests. Its behaviour is picked by
// argv[2]: "fs" (reads and writes a file through the client), "noisy" (writes a non-JSON line to
// stdout), "hang" (a prompt that never ends, with a grandchild process), "stubborn" (ignores stdin EOF),
// "env" (reports its environment as a message chunk), "crash" (exits 3 mid-turn), "orphan" (starts a
// detached `sleep 300` in its cwd, a process group of its own, then exits 3 mid-turn), "latin1" (writes a
// JSON notification encoded as Latin-1, not UTF-8), "journal" and "packed" (persist a session log under
// ACP_SNAPSHOT_PERSIST_ROOT through session-log's appender, closed at exit without / with its compaction),
// "model" and "model-ids" (one chat call to MODEL_URL, after the turn for a prompt "later ..."; "model-ids" with
// a random cache key, user id and session id in it), "echo" (declares images and embedded context, sends each prompt's content blocks back as one message
// chunk), "config" (sends back the text of the file named by ACP_SNAPSHOT_AGENT_CONFIG; one holding
// {"fail": true} makes it exit 1 at startup naming the file), "turns" (each prompt's text says what the
// turn does, see `turn` below; declares loadSession) and "lone-surrogate" (writes a notification whose text
// was cut inside an emoji, so JSON.stringify escapes half of a surrogate pair), "terminal" (runs each prompt's
// text as a command line in a client terminal, as an editor-facing agent does, and answers its output and exit;
// a prompt starting "keep: " leaves the terminal unreleased), "mcp" (connects to the stdio MCP servers of
// session/new with the official MCP client, as agents do; a prompt "SERVER TOOL {json args}" calls that tool
// and answers the result's text), "mcp-http" (the same, declaring mcpCapabilities.http and reaching the HTTP
// servers of session/new over streamable HTTP).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const mode = process.argv[2] ?? 'fs';
/** The session log of the "journal" and "packed" modes. */
let log;
const say = (client, sessionId, text) =>
  client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
  });

const configFile = process.env.ACP_SNAPSHOT_AGENT_CONFIG;
if (mode === 'config' && configFile && JSON.parse(readFileSync(configFile, 'utf8')).fail) {
  process.stderr.write(`config error: fail: this agent refuses it (in ${configFile})\n`);
  process.exit(1);
}

/** Cancels of the turn in flight: session/cancel resolves it. */
let cancelled;
const cancelledNow = () =>
  new Promise((resolve) => {
    cancelled = resolve;
  });

/**
 * A "turns" prompt: space-separated words. `chunks=N` sends N message chunks (`gapMs=G` apart, by the
 * agent's own timer), `child` starts a detached `sleep 300` in the session cwd, then `then=` ends the
 * turn: `end` (end_turn), `wait` (waits for session/cancel; answers cancelled with _meta {sent, quietMs},
 * killing the child first when `killChild` is given), `hang` (never answers), `ask` (asks permission,
 * answers end_turn whatever the outcome).
 */
async function turn(client, sessionId, text) {
  const opt = Object.fromEntries(text.split(' ').map((w) => w.split('=')));
  const waiting = cancelledNow();
  let child;
  if ('child' in opt) {
    child = spawn('sleep', ['300'], { cwd: sessionCwd, detached: true, stdio: 'ignore' });
    child.unref();
  }
  let last = Date.now();
  for (let i = 0; i < Number(opt.chunks ?? 0); i++) {
    if (i > 0 && opt.gapMs) await new Promise((r) => setTimeout(r, Number(opt.gapMs)));
    await say(client, sessionId, `chunk ${i + 1}`);
    last = Date.now();
  }
  if (opt.then === 'hang') await new Promise(() => {});
  if (opt.then === 'ask') {
    await client.request('session/request_permission', {
      sessionId,
      toolCall: { toolCallId: 'call_1', title: 'Run: sleep 300', kind: 'execute', status: 'pending' },
      options: [{ optionId: 'allow', kind: 'allow_once', name: 'Allow' }],
    });
    return { stopReason: 'end_turn' };
  }
  if (opt.then === 'wait') {
    await waiting;
    if ('killChild' in opt && child) process.kill(-child.pid, 'SIGKILL');
    return { stopReason: 'cancelled', _meta: { sent: Number(opt.chunks ?? 0), quietMs: Date.now() - last } };
  }
  return { stopReason: 'end_turn' };
}

let sessionCwd = process.cwd();
/** The "mcp" mode's MCP clients, by server name. */
const mcpClients = new Map();

const app = acp
  .agent({ name: 'fake-agent' })
  .onRequest('session/load', async ({ params, client }) => {
    sessionCwd = params.cwd;
    await say(client, params.sessionId, 'history replayed');
    return {};
  })
  .onRequest('initialize', () => {
    if (mode === 'noisy') process.stdout.write('debug: initialized\n');
    if (mode === 'latin1')
      process.stdout.write(
        Buffer.from('{"jsonrpc":"2.0","method":"_note","params":{"t":"café"}}\n', 'latin1'),
      );
    if (mode === 'lone-surrogate') {
      const title = `Run: echo 😀😀 ${'😀'.repeat(30)}`.slice(0, 20);
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', method: '_note', params: { title } })}\n`);
    }
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: mode === 'turns',
        ...(mode === 'echo' ? { promptCapabilities: { embeddedContext: true, image: true } } : {}),
        ...(mode === 'mcp-http' ? { mcpCapabilities: { http: true } } : {}),
      },
      agentInfo: { name: 'fake-agent', version: '1.0.0' },
    };
  })
  .onRequest('session/new', async ({ params, client }) => {
    sessionCwd = params.cwd;
    const sessionId = mode === 'turns' ? 'fake-session' : `fake-${process.pid}`;
    if (mode === 'model-url') {
      // What agents do with their model's address: a warning naming host and port, a config file holding the URL.
      const url = process.env.MODEL_URL;
      writeFileSync(join(params.cwd, 'model.json'), JSON.stringify({ baseUrl: `${url}/v1` }));
      await say(client, sessionId, `warning: auto mode talks to ${new URL(url).host}; using ${url}/v1`);
    }
    if (mode === 'journal' || mode === 'packed') {
      const { openLogAppender, buildHeader } = await import('@acp-snapshot/session-log');
      const path = join(process.env.ACP_SNAPSHOT_PERSIST_ROOT, `${sessionId}.jsonl`);
      log = await openLogAppender(path, { compression: 'none', compactOnClose: mode === 'packed' });
      await log.append(buildHeader({ sessionId, cwd: params.cwd }), 0);
    }
    if (mode === 'mcp' || mode === 'mcp-http') {
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      for (const server of params.mcpServers) {
        const env = Object.fromEntries((server.env ?? []).map((v) => [v.name, v.value]));
        const transport =
          server.type === 'http'
            ? new StreamableHTTPClientTransport(new URL(server.url))
            : new StdioClientTransport({
                command: server.command,
                args: server.args,
                env,
                stderr: 'pipe',
              });
        const mcp = new Client({ name: 'fake-agent', version: '1.0.0' });
        await mcp.connect(transport);
        await mcp.listTools();
        mcpClients.set(server.name, mcp);
      }
    }
    return { sessionId };
  })
  .onRequest('session/prompt', async ({ params, client }) => {
    const sessionId = params.sessionId;
    if (mode === 'turns') return turn(client, sessionId, String(params.prompt[0]?.text ?? ''));
    if (mode === 'echo') {
      await say(client, sessionId, JSON.stringify(params.prompt));
      return { stopReason: 'end_turn' };
    }
    if (mode === 'config') {
      await say(client, sessionId, configFile ? readFileSync(configFile, 'utf8') : '(no config)');
      return { stopReason: 'end_turn' };
    }
    if (mode === 'hang') {
      const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      await say(client, sessionId, `grandchild ${grandchild.pid}`);
      await new Promise(() => {});
    }
    if (mode === 'orphan') {
      spawn('sleep', ['300'], { detached: true, stdio: 'ignore' }).unref();
      process.stderr.write('fatal: left a child behind\n');
      process.exit(3);
    }
    if (mode === 'terminal') {
      const text = String(params.prompt[0]?.text ?? '');
      const keep = text.startsWith('keep: ');
      const command = keep ? text.slice('keep: '.length) : text;
      const { terminalId } = await client.request('terminal/create', { sessionId, command });
      await client.notify('session/update', {
        sessionId,
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: 'run-1',
          title: command,
          kind: 'execute',
          status: 'in_progress',
          content: [{ type: 'terminal', terminalId }],
        },
      });
      const exit = await client.request('terminal/wait_for_exit', { sessionId, terminalId });
      const { output } = await client.request('terminal/output', { sessionId, terminalId });
      if (!keep) await client.request('terminal/release', { sessionId, terminalId });
      await say(client, sessionId, `${output}[exit ${exit.exitCode ?? exit.signal}]`);
      return { stopReason: 'end_turn' };
    }
    if (mode === 'mcp' || mode === 'mcp-http') {
      const text = String(params.prompt[0]?.text ?? '');
      const [server, tool, ...rest] = text.split(' ');
      const result = await mcpClients
        .get(server)
        .callTool({ name: tool, arguments: JSON.parse(rest.join(' ') || '{}') })
        .catch((e) => ({ content: [{ type: 'text', text: `MCP error: ${e.message}` }], isError: true }));
      const said = result.content.map((c) => c.text).join('');
      await say(client, sessionId, `${result.isError ? 'tool error: ' : ''}${said}`);
      return { stopReason: 'end_turn' };
    }
    if (mode === 'crash') {
      process.stderr.write('fatal: model adapter blew up\n');
      process.exit(3);
    }
    if (log) {
      const { buildChunk, finishChunk, textChunk } = await import('@acp-snapshot/session-log');
      const events = [
        { type: 'turn/start', turn: 1 },
        buildChunk(1, 1, textChunk('Hel')),
        buildChunk(1, 1, textChunk('lo')),
        buildChunk(1, 1, finishChunk('stop')),
        { type: 'turn/end', turn: 1, kind: 'completed' },
      ];
      for (const [i, e] of events.entries()) await log.append(e, i + 1);
      await say(client, sessionId, 'Hello');
      return { stopReason: 'end_turn' };
    }
    if (mode === 'late-updates') {
      // Session-level updates after the response, in the prompt's order ("title,commands"), as a background
      // title call and a refreshed command list race one another.
      const updates = {
        title: { sessionUpdate: 'session_info_update', title: 'A title' },
        commands: { sessionUpdate: 'available_commands_update', availableCommands: [] },
      };
      const order = String(params.prompt[0]?.text ?? '').split(',');
      setTimeout(async () => {
        for (const name of order) {
          await new Promise((r) => setTimeout(r, 150));
          await client.notify('session/update', { sessionId, update: updates[name] });
        }
      }, 150);
      return { stopReason: 'end_turn' };
    }
    if (mode === 'model' || mode === 'model-ids') {
      // One OpenAI-style chat call to the model at MODEL_URL, the prompt as the user message. "model-ids" adds
      // what real agents send that differs every run: a cache key and a session id inside the text.
      const volatile =
        mode === 'model-ids'
          ? { prompt_cache_key: randomUUID(), metadata: { user_id: `user-${randomUUID()}` } }
          : {};
      const text = String(params.prompt[0]?.text ?? '');
      const content = mode === 'model-ids' ? `${text} (session ${randomUUID()})` : text;
      const call = () =>
        fetch(`${process.env.MODEL_URL}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'fake', ...volatile, messages: [{ role: 'user', content }] }),
        });
      // "later ...": the turn ends at once and the call goes out 300 ms after, writing nothing (a title call).
      if (text.startsWith('later ')) {
        setTimeout(() => call().then((r) => r.text()), 300);
        return { stopReason: 'end_turn' };
      }
      const r = await call();
      const body = await r.text();
      await say(
        client,
        sessionId,
        r.ok ? JSON.parse(body).choices[0].message.content : `model error ${r.status}`,
      );
      return { stopReason: 'end_turn' };
    }
    if (mode === 'env') {
      const keys = Object.keys(process.env).sort();
      await say(client, sessionId, JSON.stringify(Object.fromEntries(keys.map((k) => [k, process.env[k]]))));
      return { stopReason: 'end_turn' };
    }
    const text = String(params.prompt[0]?.text ?? '');
    const [file, out] = text.split(' ');
    const read = await client.request('fs/read_text_file', { sessionId, path: file });
    await say(client, sessionId, `read: ${read.content}`);
    await client.request('fs/write_text_file', { sessionId, path: out, content: read.content.toUpperCase() });
    try {
      await client.request('fs/read_text_file', { sessionId, path: '/etc/hostname' });
    } catch (e) {
      await say(client, sessionId, `refused: ${e.message}`);
    }
    return { stopReason: 'end_turn' };
  });

// Registered after session/prompt on purpose: the SDK tries handlers in registration order, one await
// each, so a cancel read right behind its prompt would otherwise run first and find no turn to cancel.
app.onNotification('session/cancel', () => cancelled?.());

const connection = app.connect(
  acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
if (mode === 'stubborn') setInterval(() => {}, 1000);
await connection.closed;
for (const mcp of mcpClients.values()) await mcp.close();
await log?.close();
if (mode !== 'stubborn') process.exit(0);
