import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { expect, test } from '@playwright/test';
import { serveClientFs } from './client-fs.js';

/**
 * The harness's client fs against the SDK's agent side, in one process: what an agent built on
 * `@agentclientprotocol/sdk` sees when it calls fs/read_text_file and fs/write_text_file.
 */
let dir: string;
let root: string;
let agent: acp.AgentContext;
let connections: acp.AcpConnection[];
const notes: string[] = [];

test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-fs-'));
  root = join(dir, 'root');
  await mkdir(root);
  notes.length = 0;
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const client = acp.client({ name: 'client-fs-test' });
  serveClientFs(client, root, { readTextFile: true, writeTextFile: true }, (l) => notes.push(l), {
    maxReadBytes: 16,
  });
  const clientSide = client.connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  const agentSide = acp
    .agent({ name: 'agent' })
    .connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  agent = agentSide.client;
  connections = [clientSide, agentSide];
});
test.afterEach(async () => {
  for (const c of connections) c.close();
  await chmod(root, 0o755).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

const read = (path: string, more: Partial<acp.ReadTextFileRequest> = {}) =>
  agent.request('fs/read_text_file', { sessionId: 's', path, ...more });
const write = (path: string, content: string) =>
  agent.request('fs/write_text_file', { sessionId: 's', path, content });

/** What the agent's SDK rejects with: the error class, code, message and data. */
async function failure(p: Promise<unknown>) {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(acp.RequestError);
  const { code, message, data } = e as acp.RequestError;
  return { code, message, data };
}

test('reads and writes inside the root, with line and limit', async () => {
  await write(join(root, 'sub/a.txt'), 'one\ntwo\nthree');
  expect(await readFile(join(root, 'sub/a.txt'), 'utf8')).toBe('one\ntwo\nthree');
  expect(await read(join(root, 'sub/a.txt'))).toEqual({ content: 'one\ntwo\nthree' });
  expect(await read(join(root, 'sub/a.txt'), { line: 2, limit: 1 })).toEqual({ content: 'two' });
  expect(notes).toEqual([
    'fs/write_text_file sub/a.txt',
    'fs/read_text_file sub/a.txt',
    'fs/read_text_file sub/a.txt',
  ]);
});

test('a missing file is "resource not found" (-32002), as agents that read before writing expect', async () => {
  const missing = join(root, 'new.txt');
  expect(await failure(read(missing))).toEqual({
    code: -32002,
    message: `Resource not found: ${missing}`,
    data: { uri: missing },
  });
  // A parent that is a file: such a file cannot exist either.
  await writeFile(join(root, 'f'), 'x');
  expect((await failure(read(join(root, 'f/inner.txt')))).code).toBe(-32002);
});

test('a directory, a relative path, a path outside the root and a too-large file are invalid params (-32602)', async () => {
  await mkdir(join(root, 'd'));
  expect(await failure(read(join(root, 'd')))).toEqual({
    code: -32602,
    message: `Invalid params: path is a directory, not a file: ${join(root, 'd')}`,
    data: { path: join(root, 'd') },
  });
  expect(await failure(write(join(root, 'd'), 'x'))).toEqual({
    code: -32602,
    message: `Invalid params: path is a directory, not a file: ${join(root, 'd')}`,
    data: { path: join(root, 'd') },
  });
  expect(await failure(read('rel.txt'))).toEqual({
    code: -32602,
    message: 'Invalid params: path must be absolute: rel.txt',
    data: { path: 'rel.txt' },
  });
  const outside = join(dir, 'secret.txt');
  await writeFile(outside, 'no');
  expect(await failure(read(outside))).toEqual({
    code: -32602,
    message: `Invalid params: path is outside the session workspace: ${outside}`,
    data: { path: outside },
  });
  expect((await failure(write(join(root, '../escape.txt'), 'x'))).code).toBe(-32602);
  const big = join(root, 'big.txt');
  await writeFile(big, 'x'.repeat(17));
  expect(await failure(read(big))).toEqual({
    code: -32602,
    message: `Invalid params: file is too large to read as text (17 bytes, the limit is 16): ${big}`,
    data: { path: big, bytes: 17, maxBytes: 16 },
  });
  await writeFile(join(root, 'f'), 'x');
  expect(await failure(write(join(root, 'f/inner.txt'), 'x'))).toEqual({
    code: -32602,
    message: `Invalid params: a parent of this path is a file, not a directory: ${join(root, 'f/inner.txt')}`,
    data: { path: join(root, 'f/inner.txt') },
  });
});

/** Runs `body` with the effective ids of `nobody` when this process is root (root reads any file). */
async function unprivileged<T>(body: () => Promise<T>): Promise<T> {
  if (process.getuid?.() !== 0 || !process.seteuid || !process.setegid) return body();
  process.setegid(65534);
  process.seteuid(65534);
  try {
    return await body();
  } finally {
    process.seteuid(0);
    process.setegid(0);
  }
}

test('permission denied is an internal error (-32603) naming the path', async () => {
  await chmod(dir, 0o755);
  const locked = join(root, 'locked.txt');
  await writeFile(locked, 'x');
  await chmod(locked, 0o000);
  expect(await unprivileged(() => failure(read(locked)))).toEqual({
    code: -32603,
    message: `Internal error: permission denied: ${locked}`,
    data: { path: locked, code: 'EACCES' },
  });
  await chmod(root, 0o555);
  expect(await unprivileged(() => failure(write(join(root, 'new.txt'), 'x')))).toEqual({
    code: -32603,
    message: `Internal error: permission denied: ${join(root, 'new.txt')}`,
    data: { path: join(root, 'new.txt'), code: 'EACCES' },
  });
});
