import { CONTRACT_ENV, type LlmPluginFactory, parseRootsEnv, REPLAY_NOTE_PREFIX } from '@acp-snapshot/core';
import {
  deriveReplayScript,
  loadOverride,
  recordedRequests,
  resolveSystemPrompt,
  resolveTools,
  type SessionHeader,
} from '@acp-snapshot/session-log';
import * as z from 'zod';
import type { RecordedContext } from './drift.js';
import { loadFixture } from './fixture.js';
import { ReplayPlayer, type Timing } from './player.js';

/** A config value that may be absent: the overlay substitutes an unset optional variable as "" or null. */
const optionalPath = z
  .union([z.string(), z.null()])
  .optional()
  .transform((v) => (v ? v : undefined));

/** The plugin's options block (other keys, such as the overlay's nulled live-adapter keys, are ignored). */
const ReplayPluginOptions = z.looseObject({
  /** Path of the scenario's recorded session log (projected fixture or raw log, plain or gzip). */
  fixture: optionalPath,
  /** Path of replay.override.json: replaces the derived script with its explicit calls. */
  override: optionalPath,
  /** The scenario's name, used in every message and in the refresh / record commands suggested. */
  scenario: z.string().min(1),
  timing: z.enum(['none', 'recorded']).default('none'),
  /** 'ignore' is for refresh: request content may change, the call positions may not. */
  fingerprints: z.enum(['check', 'ignore']).optional(),
  /** The run's mode (`replay` | `refresh`): a refresh ignores request fingerprints. */
  mode: optionalPath,
  /** The run's roots as JSON (name -> directory), put back into what is served. */
  roots: optionalPath,
  /** The shared sidecars directory (the recorded system prompt and tools, for drift messages). */
  sidecars: optionalPath,
  /** The run's spill, persist and home roots. */
  spillRoot: optionalPath,
  persistRoot: optionalPath,
  home: optionalPath,
});

/**
 * The replay LLM plugin, loaded by the agent by name ('replay'). Reads the fixture (and override),
 * derives the script eagerly so a bad log fails the agent at start-up, and serves it positionally.
 */
export const createPlugin: LlmPluginFactory = async ({ options, env, log }) => {
  const parsed = ReplayPluginOptions.safeParse(options);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`)
      .join('; ');
    throw new Error(
      `llm-replay: invalid plugin options: ${issues} (expected {fixture, override?, scenario, timing?})`,
    );
  }
  const o = parsed.data;
  if (!o.fixture && !o.override) {
    throw new Error(
      'llm-replay: options.fixture is not set: give the path of the scenario session.jsonl ' +
        '(the harness passes it as ACP_SNAPSHOT_FIXTURE)',
    );
  }
  const fixture = o.fixture ? await loadFixture(o.fixture) : undefined;
  for (const w of fixture?.warnings ?? []) log(`${REPLAY_NOTE_PREFIX}warning: ${o.fixture}: ${w}`);

  let entries: Awaited<ReturnType<typeof loadOverride>>;
  if (o.override) {
    entries = await loadOverride(o.override);
    // Override entries that name their position borrow the recorded conversation for drift reports.
    const recorded = fixture ? recordedRequests(fixture.events, o.fixture) : [];
    for (const e of entries) {
      const r = e.request;
      if (!r || r.turn === undefined) continue;
      const match = recorded.find(
        (x) =>
          x.turn === r.turn &&
          (r.step === undefined || x.step === r.step) &&
          x.purpose === (r.purpose ?? 'turn'),
      );
      if (match?.messages) r.messages = match.messages;
      // A bare hash that the fixture records in full gets the per-part hashes, so drift is located.
      if (r.fingerprint && !('parts' in r.fingerprint) && match?.fingerprint?.hash === r.fingerprint.hash) {
        r.fingerprint = match.fingerprint;
      }
    }
  } else {
    entries = deriveReplayScript(fixture!.events, { source: o.fixture!, timestamps: fixture!.timestamps });
  }

  let timing: Timing = o.timing;
  if (timing === 'recorded' && !o.override && !entries.every((e) => e.kind !== 'chunks' || e.delaysMs)) {
    log(
      `llm-replay: timing 'recorded' was asked, but ${o.fixture} has no per-chunk timestamps ` +
        '(projected fixtures drop them); serving chunks without delays',
    );
    timing = 'none';
  }
  const header = fixture?.header;
  // Options first (the agent's overlay passes them); the environment for a config that does not.
  const mode = (o.mode ?? env[CONTRACT_ENV.mode]) === 'refresh' ? 'ignore' : 'check';
  return new ReplayPlayer({
    scenario: o.scenario,
    entries,
    source: o.override ?? o.fixture!,
    recorded: recordedContext(header, o.sidecars ?? env[CONTRACT_ENV.sidecars]),
    timing,
    fingerprints: o.fingerprints ?? mode,
    roots: {
      ...parseRootsEnv(o.roots ?? env[CONTRACT_ENV.roots]),
      spill: o.spillRoot ?? env[CONTRACT_ENV.spillRoot],
      persist: o.persistRoot ?? env[CONTRACT_ENV.persistRoot],
      home: o.home ?? env.HOME,
    },
    log,
  });
};

/**
 * What the fixture tells about the recorded requests beyond their hashes: the system prompt and tool
 * schemas, inline or from their sidecars (`ACP_SNAPSHOT_SIDECARS`), so a drift shows the recorded text.
 */
function recordedContext(header: SessionHeader | undefined, sidecars: string | undefined): RecordedContext {
  if (!header) return {};
  const out: RecordedContext = {};
  const source = sidecars && sidecars !== '' ? sidecars : undefined;
  try {
    if (typeof header.systemPrompt === 'string') out.system = header.systemPrompt;
    else if (source) out.system = resolveSystemPrompt(header, source);
    if (Array.isArray(header.tools)) out.tools = header.tools;
    else if (source) out.tools = resolveTools(header, source);
  } catch {
    // A missing sidecar is the guards' to report; a drift message then gives the hashes only.
  }
  if (!header.cwd.includes('{{')) out.roots = { cwd: header.cwd };
  return out;
}
