// A small terminal ACP client for trying the agent by hand:
//   node --import tsx agent/src/try-client.ts [--yes] [--cwd DIR] [--load SESSION_ID] [--overlay PATH]... PROMPT...
// It spawns `node agent/dist/main.js [--config PATH] [--overlay PATH]...`, initializes, opens (or loads) a session in DIR (default: the
// current directory), sends each PROMPT as one turn and prints what the agent streams. Permission questions
// are asked on the terminal (or allowed with --yes). The agent's own log lines pass through on stderr.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client, ndJsonStream, type SessionNotification } from '@agentclientprotocol/sdk';

function parse(argv: string[]) {
  const o = {
    yes: false,
    cwd: process.cwd(),
    load: undefined as string | undefined,
    agentArgs: [] as string[],
    prompts: [] as string[],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--yes') o.yes = true;
    else if (a === '--cwd') o.cwd = resolve(argv[++i] ?? '.');
    else if (a === '--load') o.load = argv[++i];
    else if (a === '--overlay' || a === '--config') o.agentArgs.push(a, resolve(argv[++i] ?? ''));
    else o.prompts.push(a);
  }
  return o;
}

function show(n: SessionNotification): void {
  const u = n.update;
  const out = process.stdout;
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
    case 'user_message_chunk':
    case 'agent_thought_chunk': {
      const text = u.content.type === 'text' ? u.content.text : `[${u.content.type}]`;
      // Thoughts are dimmed on a terminal.
      out.write(u.sessionUpdate === 'agent_thought_chunk' && out.isTTY ? `\x1b[2m${text}\x1b[0m` : text);
      break;
    }
    case 'tool_call':
      out.write(`\n[tool ${u.toolCallId}] ${u.title} (${u.kind ?? 'other'})\n`);
      break;
    case 'tool_call_update':
      if (u.status === 'completed' || u.status === 'failed') {
        const first = u.content?.find((c) => c.type === 'content');
        const text = first?.type === 'content' && first.content.type === 'text' ? first.content.text : '';
        out.write(`[tool ${u.toolCallId} ${u.status}] ${text.split('\n').slice(0, 5).join('\n')}\n`);
      }
      break;
    default:
      break;
  }
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const agentMain = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  const child = spawn(process.execPath, [agentMain, ...o.agentArgs], { stdio: ['pipe', 'pipe', 'inherit'] });
  const tty = createInterface({ input: process.stdin, output: process.stderr });
  const app = client({ name: 'try-client' })
    .onNotification('session/update', ({ params }) => show(params))
    .onRequest('session/request_permission', async ({ params }) => {
      if (o.yes) return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
      const answer = await tty.question(`\nallow ${params.toolCall.title}? [y/N] `);
      return {
        outcome: { outcome: 'selected', optionId: /^y/i.test(answer) ? 'allow_once' : 'reject_once' },
      };
    });
  const conn = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  const agent = conn.agent;
  const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  process.stderr.write(`connected to ${init.agentInfo?.name} ${init.agentInfo?.version}\n`);
  let sessionId = o.load;
  if (sessionId) await agent.request('session/load', { sessionId, cwd: o.cwd, mcpServers: [] });
  else sessionId = (await agent.request('session/new', { cwd: o.cwd, mcpServers: [] })).sessionId;
  process.stderr.write(`session ${sessionId} in ${o.cwd}\n`);
  process.on('SIGINT', () => void agent.notify('session/cancel', { sessionId: sessionId! }));
  for (const text of o.prompts) {
    process.stdout.write(`\n> ${text}\n`);
    try {
      const res = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
      process.stdout.write(`\n(stop: ${res.stopReason})\n`);
    } catch (e) {
      process.stdout.write(`\n(error: ${(e as Error).message})\n`);
    }
  }
  tty.close();
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
}

main().catch((e: unknown) => {
  process.stderr.write(`try-client: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
