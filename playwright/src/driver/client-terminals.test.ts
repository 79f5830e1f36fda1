import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { expect, test } from '@playwright/test';
import { processesInside } from '../process/orphans.js';
import { ClientTerminals, retainedText } from './client-terminals.js';

/**
 * The harness's client terminals against the SDK's agent side, in one process, running real commands: what
 * an agent built on `@agentclientprotocol/sdk` sees when it runs a command through the client.
 */
let dir: string;
let cwd: string;
let agent: acp.AgentContext;
let terminals: ClientTerminals;
let connections: acp.AcpConnection[];
const notes: string[] = [];

test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-terminals-'));
  cwd = join(dir, 'cwd');
  await mkdir(cwd);
  notes.length = 0;
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const client = acp.client({ name: 'client-terminals-test' });
  terminals = new ClientTerminals({
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GREETING: 'from the test' },
    cwdOf: () => cwd,
    note: (l) => notes.push(l),
  });
  terminals.serve(client);
  const clientSide = client.connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  const agentSide = acp
    .agent({ name: 'agent' })
    .connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  agent = agentSide.client;
  connections = [clientSide, agentSide];
});
test.afterEach(async () => {
  await terminals.dispose();
  for (const c of connections) c.close();
  await rm(dir, { recursive: true, force: true });
});

const create = (command: string, more: Partial<acp.CreateTerminalRequest> = {}) =>
  agent.request('terminal/create', { sessionId: 's', command, ...more });
const output = (terminalId: string) => agent.request('terminal/output', { sessionId: 's', terminalId });
const waitForExit = (terminalId: string) =>
  agent.request('terminal/wait_for_exit', { sessionId: 's', terminalId });

test("a command line runs in the session's cwd with the test's environment and the request's variables", async () => {
  const { terminalId } = await create('pwd; echo "$GREETING / $EXTRA"; echo oops >&2; exit 3', {
    env: [{ name: 'EXTRA', value: 'from the agent' }],
  });
  expect(await waitForExit(terminalId)).toEqual({ exitCode: 3, signal: null });
  expect(await output(terminalId)).toEqual({
    output: `${cwd}\nfrom the test / from the agent\noops\n`,
    truncated: false,
    exitStatus: { exitCode: 3, signal: null },
  });
  await agent.request('terminal/release', { sessionId: 's', terminalId });
  expect(notes).toEqual([
    'terminal/create `pwd; echo "$GREETING / $EXTRA"; echo oops >&2; exit 3`',
    'terminal/wait_for_exit term-1',
    'terminal/output term-1',
    'terminal/release term-1',
  ]);
  expect(await terminals.dispose()).toEqual([]);
});

test('a command with arguments runs without a shell, in the cwd the request names', async () => {
  const other = join(dir, 'other');
  await mkdir(other);
  const { terminalId } = await create('/bin/echo', { args: ['$HOME', 'a b'], cwd: other });
  await waitForExit(terminalId);
  expect((await output(terminalId)).output).toBe('$HOME a b\n');
  const { terminalId: pwd } = await create('pwd', { cwd: other });
  await waitForExit(pwd);
  expect((await output(pwd)).output).toBe(`${other}\n`);
});

test('output past outputByteLimit loses its oldest bytes, cut on a character boundary, and says it was truncated', async () => {
  // 10 bytes of "€" (3 bytes each) then "end": keeping 8 bytes would start inside a "€".
  const { terminalId } = await create("printf '€€€€€€€€€€end'", { outputByteLimit: 8 });
  await waitForExit(terminalId);
  expect(await output(terminalId)).toEqual({
    output: '€end',
    truncated: true,
    exitStatus: { exitCode: 0, signal: null },
  });
});

test('output of a running command is answered with its exit status absent; a half-written character waits', async () => {
  const { terminalId } = await create('echo started; sleep 300');
  await expect.poll(async () => (await output(terminalId)).output).toBe('started\n');
  expect(await output(terminalId)).toEqual({ output: 'started\n', truncated: false });
  // "€" is e2 82 ac: the first two bytes alone are not text yet.
  expect(retainedText(Buffer.from([0x61, 0xe2, 0x82]), true)).toBe('a');
  expect(retainedText(Buffer.from([0x61, 0xe2, 0x82, 0xac]), true)).toBe('a€');
});

test('kill ends the command and what it started, wait_for_exit answers the signal, the terminal stays until released', async () => {
  const { terminalId } = await create('sleep 300 & echo child; wait');
  await expect.poll(async () => (await output(terminalId)).output).toBe('child\n');
  expect((await processesInside(cwd)).map((p) => p.command)).toContain('sleep 300');
  await agent.request('terminal/kill', { sessionId: 's', terminalId });
  expect(await waitForExit(terminalId)).toEqual({ exitCode: null, signal: 'SIGKILL' });
  expect(await output(terminalId)).toEqual({
    output: 'child\n',
    truncated: false,
    exitStatus: { exitCode: null, signal: 'SIGKILL' },
  });
  expect(await processesInside(cwd)).toEqual([]);
  await agent.request('terminal/release', { sessionId: 's', terminalId });
  const gone = await output(terminalId).catch((e: acp.RequestError) => e);
  expect(gone).toBeInstanceOf(acp.RequestError);
  expect((gone as acp.RequestError).message).toContain(
    'terminal term-1 was released: a released terminal cannot be used',
  );
});

test('background jobs end with the command, so wait_for_exit answers when the command exits', async () => {
  const { terminalId } = await create('sleep 300 & echo done');
  expect(await waitForExit(terminalId)).toEqual({ exitCode: 0, signal: null });
  expect(await processesInside(cwd)).toEqual([]);
});

test('a command that is not found exits 127, with the reason as its output', async () => {
  const { terminalId } = await create('/no/such/tool', { args: ['x'] });
  expect(await waitForExit(terminalId)).toEqual({ exitCode: 127, signal: null });
  expect((await output(terminalId)).output).toContain('/no/such/tool: spawn /no/such/tool ENOENT');
});

test('bad requests are invalid params naming the field: a relative cwd, an unknown terminal', async () => {
  await expect(create('true', { cwd: 'rel' })).rejects.toThrow('cwd must be an absolute path: rel');
  await expect(output('term-9')).rejects.toThrow('no terminal term-9');
});

test('at the end, a command still running is killed and named with its command line; an unreleased one is released and named', async () => {
  const { terminalId: never } = await create('sleep 300');
  const { terminalId: done } = await create('true');
  await waitForExit(done);
  expect((await terminals.dispose()).map((l) => [l.running, l.message])).toEqual([
    [
      true,
      `terminal ${never} (\`sleep 300\` in ${cwd}) was still running at the end of the test: the client killed it and released it`,
    ],
    [
      false,
      `terminal ${done} (\`true\`) was never released by the agent: the client released it at the end of the test`,
    ],
  ]);
  expect(await processesInside(cwd)).toEqual([]);
  expect(terminals.created.map((t) => [t.id, t.exitStatus, t.released])).toEqual([
    [never, { exitCode: null, signal: 'SIGKILL' }, true],
    [done, { exitCode: 0, signal: null }, true],
  ]);
});
