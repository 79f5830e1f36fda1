import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { CONTRACT_ENV, handWrittenFileText } from '@acp-snapshot/core';
import * as z from 'zod';

/** A startup failure caused by configuration; its message names the config key (or file) and the fix. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A limit: a whole number of at least 1. */
const positiveInt = z.number().int().positive();

const PermissionPolicy = z.enum(['ask', 'allow', 'deny']);
/** What happens before a tool of a given permission class runs. */
export type PermissionPolicy = z.infer<typeof PermissionPolicy>;

const Clock = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('system') }),
  z.strictObject({
    kind: z.literal('fixed-step'),
    /** ISO-8601 instant of the first reading. */
    start: z.iso.datetime({ offset: true }),
    stepMs: z.number().int().nonnegative(),
  }),
]);

const Ids = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('random') }),
  z.strictObject({ kind: z.literal('counter') }),
]);

/** The agent configuration (base config with overlays merged over it, env substituted). */
export const AgentConfig = z.strictObject({
  llm: z.strictObject({
    /** Plugin name: deepseek | openai-compatible | replay (ignored when `module` is set). */
    plugin: z.string().min(1),
    /** Path of a plugin module exporting `createPlugin`; relative paths resolve against the process cwd. */
    module: z.string().min(1).optional(),
    /** The model id sent in every request (the session's starting model). */
    model: z.string().min(1),
    /** Further model ids a session may switch to (the `model` config option offers these and `model`). */
    models: z.array(z.string().min(1)).default([]),
    /** The plugin's own options block, passed to createPlugin as-is. */
    options: z.record(z.string(), z.unknown()).prefault({}),
    /** Sampling/size parameters sent with every turn request (part of the request fingerprint). */
    params: z
      .strictObject({
        temperature: z.number().optional(),
        maxTokens: z.number().int().positive().optional(),
        extra: z.record(z.string(), z.unknown()).optional(),
      })
      .prefault({}),
  }),
  /** Replaces the built-in system prompt text (the working-directory line is always appended). */
  systemPrompt: z.string().optional(),
  /** Model calls allowed in one prompt turn before it ends with `max_turn_requests`. */
  maxStepsPerTurn: z.number().int().positive().default(25),
  permissions: z
    .strictObject({ edit: PermissionPolicy.default('ask'), command: PermissionPolicy.default('ask') })
    .prefault({}),
  compaction: z
    .strictObject({
      /** Estimated context size (characters / 4) above which older messages are summarized. */
      budgetTokens: z.number().int().positive().default(96000),
      /** Most recent messages always kept verbatim. */
      keepRecentMessages: z.number().int().nonnegative().default(6),
      /** maxTokens of the summary call. */
      maxSummaryTokens: z.number().int().positive().default(2048),
    })
    .prefault({}),
  tools: z
    .strictObject({
      /** Characters of tool output the model sees before the rest is spilled. */
      previewBudget: z.number().int().positive().default(8000),
      bashTimeoutMs: z.number().int().positive().default(120000),
      /** Environment variables passed through to tool child processes (everything else is scrubbed). */
      envPassthrough: z.array(z.string()).default(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'USER', 'TERM']),
      /** Extra variables set for tool child processes. */
      env: z.record(z.string(), z.string()).default({}),
      /** Per-tool limits (each field optional; the defaults are in agent/README.md). */
      read_file: z
        .strictObject({ defaultLimit: positiveInt.optional(), maxLineChars: positiveInt.optional() })
        .optional(),
      glob: z.strictObject({ maxResults: positiveInt.optional() }).optional(),
      grep: z
        .strictObject({
          maxMatches: positiveInt.optional(),
          maxLineChars: positiveInt.optional(),
          maxFileBytes: positiveInt.optional(),
        })
        .optional(),
      bash: z
        .strictObject({ maxOutputChars: positiveInt.optional(), titleChars: positiveInt.optional() })
        .optional(),
    })
    .prefault({}),
  sessionList: z
    .strictObject({
      /** Sessions in one `session/list` page; a longer list continues with `nextCursor`. */
      pageSize: z.number().int().positive().max(1000).default(50),
    })
    .prefault({}),
  clock: Clock.default({ kind: 'system' }),
  ids: Ids.default({ kind: 'random' }),
  /** Directory of session logs (`<sessionId>.jsonl[.gz]`); `~` expands to the home directory. */
  persistRoot: z.string().min(1),
  /** Directory where over-budget tool output is written in full. */
  spillRoot: z.string().min(1),
  persistenceCompression: z.enum(['gzip', 'none']).default('gzip'),
});
/** The validated configuration. */
export type AgentConfig = z.infer<typeof AgentConfig>;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Overlay values replace base values; objects merge recursively; `null` removes the key. */
export function deepMerge(base: Json, overlay: Json): Json {
  if (!isPlainObject(base) || !isPlainObject(overlay)) return overlay;
  const out: { [k: string]: Json } = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    if (value === null) delete out[key];
    else out[key] = key in out ? deepMerge(out[key] as Json, value) : value;
  }
  return out;
}

function isPlainObject(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A marker for "${VAR?}" strings whose variable is unset: the key is dropped. */
const ABSENT = Symbol('absent');

/**
 * Replaces `${VAR}` in every string with the variable's value. `${VAR?}` is optional: a string that is
 * exactly `${VAR?}` disappears (its key is removed) when VAR is unset, and inside a longer string it
 * becomes empty. `$${` is a literal `${`. A missing required variable throws, naming the config key.
 */
export function substituteEnv(
  value: Json,
  env: Record<string, string | undefined>,
  where: (keyPath: string) => string,
  keyPath = '',
): Json {
  if (typeof value === 'string') {
    const r = substituteString(value, env, keyPath, where);
    return r === ABSENT ? (undefined as unknown as Json) : r;
  }
  if (Array.isArray(value)) {
    return value
      .map((v, i) => substituteEnv(v, env, where, `${keyPath}[${i}]`))
      .filter((v) => v !== undefined);
  }
  if (isPlainObject(value)) {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) {
      const r = substituteEnv(v, env, where, keyPath ? `${keyPath}.${k}` : k);
      if (r !== undefined) out[k] = r;
    }
    return out;
  }
  return value;
}

function substituteString(
  s: string,
  env: Record<string, string | undefined>,
  keyPath: string,
  where: (keyPath: string) => string,
): string | typeof ABSENT {
  const whole = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\?\}$/.exec(s);
  if (whole) {
    const v = env[whole[1]!];
    return v === undefined || v === '' ? ABSENT : v;
  }
  return s.replace(/\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(\?)?\}/g, (match, name: string | undefined, opt) => {
    if (match === '$${') return '${';
    const v = env[name!];
    if (v !== undefined && v !== '') return v;
    if (opt) return '';
    throw new ConfigError(
      `config error: ${keyPath}: environment variable ${name} is not set (referenced by ${where(keyPath)}; ` +
        "set it in the agent's environment)",
    );
  });
}

/** Where one loaded config file came from, and its parsed JSON. */
export interface ConfigSource {
  path: string;
  json: Json;
}

/** Reads and parses one JSON config file, with a clear error naming the file. */
export function readConfigFile(path: string): ConfigSource {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new ConfigError(`config error: cannot read ${path}: ${(e as Error).message}`);
  }
  let text: string;
  try {
    text = handWrittenFileText(bytes, path);
  } catch (e) {
    throw new ConfigError(`config error: ${(e as Error).message}`);
  }
  try {
    const json = JSON.parse(text) as Json;
    if (!isPlainObject(json)) throw new Error('the top level must be a JSON object');
    return { path, json };
  } catch (e) {
    throw new ConfigError(`config error: ${path}: not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * Merges the base config and overlays (in order), substitutes environment variables, validates with zod
 * and expands `~` in the root paths. Throws ConfigError naming the key on any problem.
 */
export function resolveConfig(sources: ConfigSource[], env: Record<string, string | undefined>): AgentConfig {
  // Substituted per file before merging, so an optional "${VAR?}" that is unset leaves the base value in
  // place, and a missing variable is reported with the file that references it.
  let merged: Json = {};
  for (const s of sources)
    merged = deepMerge(
      merged,
      substituteEnv(s.json, env, () => s.path),
    );
  const where = (keyPath: string) => {
    // Name the last file that sets this key (the one whose value won the merge).
    for (let i = sources.length - 1; i >= 0; i--)
      if (hasKeyPath(sources[i]!.json, keyPath)) return sources[i]!.path;
    return sources.map((s) => s.path).join(' + ');
  };
  const parsed = AgentConfig.safeParse(merged, { jitless: true });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.map(String).join('.') || '(top level)';
      return `config error: ${key}: ${issue.message} (in ${where(key)})`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  const home = env.HOME || homedir();
  const config = parsed.data;
  config.persistRoot = expandPath(config.persistRoot, home);
  config.spillRoot = expandPath(config.spillRoot, home);
  if (config.llm.module) config.llm.module = resolve(config.llm.module);
  return config;
}

/** The environment variable naming the per-scenario config a test harness hands the agent. */
export const SCENARIO_CONFIG_ENV = CONTRACT_ENV.agentConfig;

/**
 * Keys a scenario's config may not set: the mode's overlay owns them (which model plugin runs, where logs
 * and spills go, the clock, the ids, the compression), so a scenario cannot turn a keyless, deterministic
 * replay into a live or wall-clock run.
 */
export const OVERLAY_OWNED_KEYS = [
  'llm.plugin',
  'llm.module',
  'llm.options',
  'persistRoot',
  'spillRoot',
  'persistenceCompression',
  'clock',
  'ids',
] as const;

/**
 * The scenario config file named by `ACP_SNAPSHOT_AGENT_CONFIG`, read like any overlay (it is merged last),
 * or undefined when the variable is unset. A key the mode's overlay owns is a ConfigError naming it.
 */
export function scenarioConfigSource(env: Record<string, string | undefined>): ConfigSource | undefined {
  const path = env[SCENARIO_CONFIG_ENV];
  if (!path) return undefined;
  const source = readConfigFile(path);
  const owned = OVERLAY_OWNED_KEYS.filter((key) => hasKeyPath(source.json, key));
  if (owned.length > 0) {
    throw new ConfigError(
      owned
        .map(
          (key) =>
            `config error: ${key}: a scenario's config may not set it (in ${path}, named by ${SCENARIO_CONFIG_ENV}); ` +
            "the mode's overlay owns the model plugin, roots, clock, ids and compression. Remove the key from the scenario's agent config.",
        )
        .join('\n'),
    );
  }
  return source;
}

function hasKeyPath(json: Json, keyPath: string): boolean {
  let cur: Json | undefined = json;
  for (const part of keyPath.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== '')) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (isPlainObject(cur)) cur = cur[part];
    else return false;
    if (cur === undefined) return false;
  }
  return true;
}

/** `~` and `~/x` expand to the home directory; relative paths resolve against the process cwd. */
export function expandPath(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return resolve(home, p.slice(2));
  return isAbsolute(p) ? p : resolve(p);
}
