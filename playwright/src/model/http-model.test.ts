import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '@acp-snapshot/emulator';
import {
  buildChunk,
  buildHeader,
  finishChunk,
  type LogRecord,
  makeRecords,
  textChunk,
} from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { projectHarvested } from '../compare/harvest.js';
import { COVERAGE_PROJECT, defineAcpConfig } from '../config.js';
import type { TestRoots } from '../roots/roots.js';
import {
  type HttpModelSource,
  RECORD_MODE_ENV,
  recordModeOf,
  startHttpModel,
  withModelServer,
} from './http-model.js';

let dir: string;
test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'http-model-'));
});
test.afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const record = (upstream: HttpModelSource['upstream']) => ({
  kind: 'http' as const,
  record: 'all' as const,
  exchanges: join(dir, 'exchanges.jsonl'),
  ...(upstream ? { upstream } : {}),
});

/** A port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

test('recording without the upstream key stops before the agent starts, naming the variable', async () => {
  const started = Date.now();
  await expect(
    startHttpModel(record({ baseUrlEnv: 'UPSTREAM_URL', apiKeyEnv: 'GEMINI_API_KEY' }), {}, 'fix', {
      UPSTREAM_URL: 'http://127.0.0.1:9',
    }),
  ).rejects.toThrow('model: the upstream key variable GEMINI_API_KEY is not set; export it and record again');
  // An empty value is not a key either.
  await expect(
    startHttpModel(record({ baseUrl: 'http://127.0.0.1:9', apiKeyEnv: 'GEMINI_API_KEY' }), {}, 'fix', {
      GEMINI_API_KEY: '',
    }),
  ).rejects.toThrow('GEMINI_API_KEY is not set');
  expect(Date.now() - started).toBeLessThan(5_000);
});

test('recording against an upstream nobody listens on stops at once, naming the URL and its variable', async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  await expect(
    startHttpModel(record({ baseUrlEnv: 'UPSTREAM_URL', apiKeyEnv: 'KEY' }), {}, 'fix', {
      UPSTREAM_URL: url,
      KEY: 'k',
    }),
  ).rejects.toThrow(
    `model: the upstream ${url} (UPSTREAM_URL) is not reachable (ECONNREFUSED); start it or fix the URL, and record again`,
  );
});

test('with its key and a listening upstream, recording starts', async () => {
  const emulator = await startEmulator({ script: { responses: [{ reply: { text: 'hi' } }] } });
  try {
    const model = await startHttpModel(record({ baseUrl: emulator.url, apiKeyEnv: 'KEY' }), {}, 'fix', {
      KEY: 'k',
    });
    expect(model.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await model.finish();
  } finally {
    await emulator.close();
  }
});

test('ids in the other spelling are refused before the server starts, naming the rule to write', async () => {
  await expect(
    startHttpModel(
      {
        kind: 'http',
        exchanges: join(dir, 'exchanges.jsonl'),
        ids: [{ path: 'prompt_cache_key', name: 'sessionId' } as never],
      },
      {},
      'fix',
    ),
  ).rejects.toThrow(
    'model.ids[0]: "name" is not the rule spelling; write { path: "/prompt_cache_key", placeholder: "{{sessionId}}" }',
  );
});

test("the model server's address in a persisted session log is a placeholder, as on stdout and in the workspace", () => {
  const root = '/tmp/acp-snap-11111111-bbbbbb';
  const roots: TestRoots = {
    root,
    cwd: `${root}/work`,
    persistRoot: `${root}/persist`,
    spillRoot: `${root}/spill`,
    home: `${root}/home`,
    tmp: `${root}.tmp`,
    aliases: {},
  };
  const text = 'using http://127.0.0.1:40123/v1 (127.0.0.1:40123); port 40123 of 127.0.0.1:401234';
  const records: LogRecord[] = [
    { event: buildHeader({ cwd: roots.cwd }) },
    ...(makeRecords(
      [
        { type: 'turn/start', turn: 0 },
        buildChunk(0, 0, textChunk(text)),
        buildChunk(0, 0, finishChunk('stop')),
        { type: 'turn/end', turn: 0, kind: 'completed' },
      ] as never,
      { startTs: 1_735_689_600_000 },
    ) as LogRecord[]),
  ];
  const projected = projectHarvested({ records }, withModelServer(roots, 'http://127.0.0.1:40123')).text;
  // Only the server's own host and port: another port that starts the same is left as it is.
  expect(projected).toContain('using {{modelBaseUrl}}/v1 ({{modelHost}}); port 40123 of 127.0.0.1:401234');
});

const source: HttpModelSource = { kind: 'http', record: 'all', upstream: { baseUrlEnv: 'MODEL_URL' } };

test('the record mode: the source says it, ACP_SNAPSHOT_RECORD_MODE overrides it for one run, none by default', () => {
  expect(recordModeOf({ kind: 'http' }, {})).toBe('none');
  expect(recordModeOf(source, {})).toBe('all');
  expect(recordModeOf(source, { [RECORD_MODE_ENV]: 'missing' })).toBe('missing');
  expect(recordModeOf(source, { [RECORD_MODE_ENV]: 'none' })).toBe('none');
  expect(recordModeOf(source, { [RECORD_MODE_ENV]: '' })).toBe('all');
});

test('a bad record mode, or the old mode option, is refused saying what to write instead', () => {
  expect(() => recordModeOf(source, { [RECORD_MODE_ENV]: 'new_episodes' })).toThrow(
    'ACP_SNAPSHOT_RECORD_MODE="new_episodes" is not a record mode: use none, missing, all (e.g. ACP_SNAPSHOT_RECORD_MODE=missing records only the calls the exchange log lacks)',
  );
  expect(() => recordModeOf({ kind: 'http', record: 'once' as 'all' }, {})).toThrow(
    `model.record: "once" is not a record mode: use 'none', 'missing', 'all'`,
  );
  expect(() => recordModeOf({ kind: 'http', mode: 'record' } as HttpModelSource, {})).toThrow(
    "model: `mode: \"record\"` is now `record`: set model.record to 'none', 'missing', 'all'",
  );
});

test("defineAcpConfig: a NAME:record project records in the mode its record option names, 'all' by default", () => {
  const models = (record: Parameters<typeof defineAcpConfig>[0]['record']) =>
    Object.fromEntries(
      (defineAcpConfig({ agents: { a: { command: ['a'] } }, model: { kind: 'http' }, record }).projects ?? [])
        .filter((p) => p.name !== COVERAGE_PROJECT)
        .map((p) => [p.name, (p.use as { model?: HttpModelSource }).model?.record]),
    );
  const upstream = { baseUrlEnv: 'MODEL_URL' };
  expect(models({ upstream })).toEqual({ a: undefined, 'a:record': 'all' });
  expect(models({ upstream, mode: 'missing' })).toEqual({ a: undefined, 'a:record': 'missing' });
});
