#!/usr/bin/env node
// A small real ACP agent (SDK over stdio) for the driver's unit tests. Its behaviour is picked by
// argv[2]: "fs" (reads and writes a file through the client), "noisy" (writes a non-JSON line to
// stdout), "hang" (a prompt that never ends, with a grandchild process), "stubborn" (ignores stdin EOF),
// "env" (reports its environment as a message chunk), "crash" (exits 3 mid-turn), "orphan" (starts a
// detached `sleep 300` in its cwd, a process group of its own, then exits 3 mid-turn), "latin1" (writes a
// JSON notification encoded as Latin-1, not UTF-8), "lone-surrogate" (writes a notification whose text was
// cut inside an emoji, so JSON.stringify escapes half of a surrogate pair).
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const mode = process.argv[2] ?? 'fs';
const say = (client, sessionId, text) =>
  client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
  });

const app = acp
  .agent({ name: 'fake-agent' })
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
      agentCapabilities: { loadSession: false },
      agentInfo: { name: 'fake-agent', version: '1.0.0' },
    };
  })
  .onRequest('session/new', () => ({ sessionId: `fake-${process.pid}` }))
  .onRequest('session/prompt', async ({ params, client }) => {
    const sessionId = params.sessionId;
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
    if (mode === 'crash') {
      process.stderr.write('fatal: model adapter blew up\n');
      process.exit(3);
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

const connection = app.connect(
  acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
if (mode === 'stubborn') setInterval(() => {}, 1000);
await connection.closed;
if (mode !== 'stubborn') process.exit(0);
