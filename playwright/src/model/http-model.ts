/**
 * The model side over HTTP, for agents that cannot load llm-replay: a model-http server started per test,
 * which the agent reaches through its profile (`{{modelBaseUrl}}` in its env or HOME files). Record mode
 * `none` (replay) serves the scenario's recorded exchanges keylessly and fails the test on a request it
 * cannot match or a recorded exchange left unused; `all` forwards every request to the real upstream (its
 * key from the environment, never stored), `missing` only those the log does not have, and both write the
 * exchange log when the test ends and say what changed in it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, resolve } from 'node:path';
import type { ReplayDrift } from '@acp-snapshot/core';
import {
  type Exchange,
  exchangeLogChanges,
  formatLogChanges,
  type ModelFault,
  type ModelServer,
  type NormalizeOptions,
  readExchangeLog,
  serializeExchanges,
  startModelServer,
  type Verdict,
  writeExchangeLog,
} from '@acp-snapshot/model-http';
import { checkRules, type Rule } from '../profile.js';
import type { TestRoots } from '../roots/roots.js';

/**
 * How a test's model calls are recorded: `none` replays the exchange log only (keyless, the default),
 * `missing` serves what the log has and records only the requests it lacks (exchanges nothing asked for
 * are removed), `all` records every call again, rewriting the log.
 */
export type RecordMode = 'none' | 'missing' | 'all';
export const RECORD_MODES: readonly RecordMode[] = ['none', 'missing', 'all'];
/** The environment variable that sets the record mode of every HTTP model test of one run. */
export const RECORD_MODE_ENV = 'ACP_SNAPSHOT_RECORD_MODE';

export interface HttpModelSource {
  kind: 'http';
  /**
   * The exchange log (`exchanges.jsonl`): read in replay, written in record. Default: `exchanges.jsonl` in
   * the test's snapshot directory, beside what `toMatchAcpSnapshot()` writes.
   */
  exchanges?: string;
  /** The sidecars directory large request values live in (default: `sidecars/` beside the log's directory). */
  sidecars?: string;
  /**
   * {@link RecordMode}: `none` (default, keyless replay), `missing` or `all` (both forward to `upstream`).
   * ACP_SNAPSHOT_RECORD_MODE overrides it for one run.
   */
  record?: RecordMode;
  /** Recording (`missing`, `all`): the real model. The base URL itself or the variable holding it; the key's variable. */
  upstream?: { baseUrl?: string; baseUrlEnv?: string; apiKeyEnv?: string };
  /** Replay: recorded requests whose body contains one of these texts may go unused (background calls). */
  optional?: string[];
  /**
   * What of a request is volatile besides this test's roots and dates: rules in the one spelling (profile.ts
   * `Rule`), each placeholder one `{{name}}`: `{ path: '/metadata/user_id', placeholder: '{{userId}}' }` (a JSON
   * Pointer; a segment `*` is any key or index, `**` any depth) or `{ pattern, placeholder }` (distinct matches
   * numbered `{{name#N}}` per request).
   */
  ids?: Rule[];
}

export interface HttpModel {
  /** The server's origin (`http://127.0.0.1:PORT`): what `{{modelBaseUrl}}` becomes. */
  url: string;
  /** This run's record mode (the source's, or the environment's). */
  record: RecordMode;
  /** Model requests the server has received so far (its `HEAD` preflight answers are not counted). */
  readonly calls: number;
  /**
   * Declares a provider fault for the calls still to come, e.g. before the prompt:
   * `httpModel.fault({ kind: 'status', status: 429, retryAfter: 0.001 })`. A fault that never fires fails the test.
   */
  fault(fault: ModelFault): void;
  /**
   * Stops the server and judges it: throws the verdict's message when it is not ok. Recording writes the
   * log and returns what changed in it, exchange by exchange (kept, re-recorded, added, removed).
   */
  finish(): Promise<string | undefined>;
  /**
   * Stops the server and returns its verdict for the test to judge (a test of a failure): `finish` then
   * judges nothing more.
   */
  verdict(): Promise<Verdict>;
  /**
   * Replay: the verdict's message when the replay has failed so far (a request it could not match, a recorded
   * exchange not used), else undefined. The snapshot matcher reports it before any surface: a surface that
   * differs after a failed replay shows the failure, not a change to accept. `finish` then does not throw it again.
   */
  replayFailure(): string | undefined;
  /**
   * Replay: where the first request that matched nothing differs from the recorded one it was meant to be, as
   * data (the failure's cause is keyed by it), or undefined when the replay has not drifted.
   */
  replayDrift(): ReplayDrift | undefined;
  /**
   * Replay: whether recorded exchanges are still waiting for their request (an agent's background call after the
   * turn, a title or a memory), while nothing has gone wrong; false once a request matched nothing.
   */
  awaitingCalls(): boolean;
}

/** The record mode of a source in this run: ACP_SNAPSHOT_RECORD_MODE's, else the source's, else `none`. */
export function recordModeOf(source: HttpModelSource, env: NodeJS.ProcessEnv = process.env): RecordMode {
  if ('mode' in source)
    throw new Error(
      `model: \`mode: ${JSON.stringify((source as { mode?: unknown }).mode)}\` is now \`record\`: set model.record to ${RECORD_MODES.map((m) => `'${m}'`).join(', ')} (record: 'all' is the old mode: 'record'; 'none', the default, replays)`,
    );
  const fromEnv = env[RECORD_MODE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!(RECORD_MODES as readonly string[]).includes(fromEnv))
      throw new Error(
        `${RECORD_MODE_ENV}=${JSON.stringify(fromEnv)} is not a record mode: use ${RECORD_MODES.join(', ')} (e.g. ${RECORD_MODE_ENV}=missing records only the calls the exchange log lacks)`,
      );
    return fromEnv as RecordMode;
  }
  const mode = source.record ?? 'none';
  if (!RECORD_MODES.includes(mode))
    throw new Error(
      `model.record: ${JSON.stringify(mode)} is not a record mode: use ${RECORD_MODES.map((m) => `'${m}'`).join(', ')}`,
    );
  return mode;
}

/** Starts the model server of one test; `roots` are this test's (name -> directory). */
export async function startHttpModel(
  source: HttpModelSource & { exchanges: string },
  roots: Record<string, string>,
  fix: string,
  env: NodeJS.ProcessEnv = process.env,
  faults: readonly ModelFault[] = [],
): Promise<HttpModel> {
  checkRules(source.ids ?? [], 'model.ids', { name: true });
  const file = resolve(source.exchanges);
  const sidecars = resolve(source.sidecars ?? resolve(dirname(file), '..', 'sidecars'));
  const normalize: NormalizeOptions = { roots, ...(source.ids ? { ids: source.ids } : {}) };
  const record = recordModeOf(source, env);
  // No log: the test was recorded calling no model, and any request it makes now is drift (or, missing, new).
  const exchanges = record !== 'all' && existsSync(file) ? readExchangeLog(file, { sidecars, fix }) : [];
  const optional = source.optional ?? [];
  const common = {
    normalize,
    ...(optional.length
      ? { optional: (ex: Exchange) => optional.some((t) => JSON.stringify(ex.request).includes(t)) }
      : {}),
    faults,
    verdict: { fix, file },
  };
  let server: ModelServer;
  if (record === 'none') server = await startModelServer({ mode: 'replay', exchanges, ...common });
  else {
    const baseUrl =
      source.upstream?.baseUrl ?? (source.upstream?.baseUrlEnv ? env[source.upstream.baseUrlEnv] : undefined);
    if (!baseUrl)
      throw new Error(
        `model: record mode ${JSON.stringify(record)} needs the real model's URL: set model.upstream.baseUrl, or export ${source.upstream?.baseUrlEnv ?? 'the variable named in model.upstream.baseUrlEnv'} (with defineAcpConfig, record through a NAME:record project)`,
      );
    // Before the agent starts: without its key or its server, every request would be refused and the test
    // would wait out the prompt deadline while the agent retries.
    const keyEnv = source.upstream?.apiKeyEnv;
    if (keyEnv && !env[keyEnv])
      throw new Error(`model: the upstream key variable ${keyEnv} is not set; export it and record again`);
    const unreachable = await upstreamUnreachable(baseUrl);
    if (unreachable)
      throw new Error(
        `model: the upstream ${baseUrl}${source.upstream?.baseUrlEnv ? ` (${source.upstream.baseUrlEnv})` : ''} is not reachable (${unreachable}); start it or fix the URL, and record again`,
      );
    server = await startModelServer({
      mode: record === 'all' ? 'record' : 'missing',
      exchanges,
      upstream: { baseUrl, ...(source.upstream?.apiKeyEnv ? { apiKeyEnv: source.upstream.apiKeyEnv } : {}) },
      env,
      ...common,
    });
  }
  let closed: Promise<Verdict> | undefined;
  let judgedByTest = false;
  let reported: string | undefined;
  const stop = () => {
    closed ??= server.close().then(() => server.verdict());
    return closed;
  };
  return {
    url: server.url,
    record,
    get calls() {
      return server.calls;
    },
    fault: (fault) => server.fault(fault),
    async verdict() {
      judgedByTest = true;
      return stop();
    },
    replayFailure() {
      if (record !== 'none') return undefined;
      const verdict = server.verdict();
      if (verdict.ok) return undefined;
      reported = verdict.message;
      return verdict.message;
    },
    replayDrift() {
      return record === 'none' ? server.verdict().drift : undefined;
    },
    awaitingCalls() {
      return record === 'none' && server.awaitingCalls();
    },
    async finish() {
      const verdict = await stop();
      if (judgedByTest || record === 'none') {
        // A replay failure the snapshot matcher already reported is not thrown twice.
        if (!judgedByTest && !verdict.ok && verdict.message !== reported) throw new Error(verdict.message);
        return undefined;
      }
      if (!verdict.ok) throw new Error(verdict.message);
      const old = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
      // A test that calls no model (or whose only calls a fault answered) needs no log: one left from an
      // earlier recording goes, as the test's does.
      if (server.calls === server.faulted) {
        rmSync(file, { force: true });
        return old === undefined
          ? undefined
          : `model exchanges (record ${record}): ${file} removed: the test called no model`;
      }
      // Requests that got no answer never replace a recording.
      if (server.exchanges.length === 0)
        throw new Error(
          `model: no model exchange was recorded through the recording server, so ${file} is left as it was. Point the agent at {{modelBaseUrl}} in its profile (env or HOME files), and check the upstream answers.`,
        );
      mkdirSync(dirname(file), { recursive: true });
      writeExchangeLog(file, server.exchanges, { sidecarsDir: sidecars });
      const changes = exchangeLogChanges(old, serializeExchanges(server.exchanges).text);
      return [`model exchanges (record ${record}) of ${file}:`, ...formatLogChanges(changes)].join('\n');
    },
  };
}

export type { ModelFault };

/** Each upstream's reachability (checked once per worker when reachable): why it cannot be reached, or undefined. */
const reachability = new Map<string, Promise<string | undefined>>();

/** Connects to the upstream's host and port (no request is sent); why that failed, or undefined. */
function upstreamUnreachable(baseUrl: string): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // model-http refuses a URL that does not parse, naming it.
    return Promise.resolve(undefined);
  }
  const key = `${url.protocol}//${url.host}`;
  let known = reachability.get(key);
  if (!known) {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    known = new Promise((resolve) => {
      const socket = connect({ host: url.hostname, port, timeout: 10_000 });
      socket.once('connect', () => {
        socket.destroy();
        resolve(undefined);
      });
      socket.once('timeout', () => {
        socket.destroy();
        resolve('no answer within 10 s');
      });
      socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
    reachability.set(key, known);
    // Only a reachable upstream is remembered: one started later (by a beforeAll) is tried again.
    void known.then((why) => why && reachability.delete(key));
  }
  return known;
}

/**
 * The test's roots with its model server's address (`{{modelBaseUrl}}`, and `{{modelHost}}` for `127.0.0.1:PORT`
 * alone), for the snapshot surfaces: the port is new in every test, and agents print it (warnings, configs they
 * write). Model requests are normalized without it: they are recorded as sent.
 */
export function withModelServer(roots: TestRoots, url: string): TestRoots {
  return { ...roots, modelBaseUrl: url, modelHost: new URL(url).host };
}

/** `{{modelBaseUrl}}` in a profile's env value or HOME file becomes this test's model server URL. */
export function withModelBaseUrl(text: string, url: string | undefined): string {
  if (!text.includes('{{modelBaseUrl}}')) return text;
  if (!url)
    throw new Error(
      'agent profile: {{modelBaseUrl}} is used, but the project has no HTTP model: set use.model = { kind: "http", exchanges: ... }',
    );
  return text.replaceAll('{{modelBaseUrl}}', url);
}
