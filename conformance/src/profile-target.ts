/**
 * Agent profiles (the object a user writes for the harness, its `AgentProfile`) as conformance targets: the
 * profile's command, its env and HOME files (placed in every check's fresh HOME), exitGraceMs and settleMs.
 * Env values and HOME files may name `{{modelBaseUrl}}` (the kit then starts its prompt-aware model stand-in
 * for each check and puts its URL there), `{{home}}`, `{{cwd}}` and `{{tmp}}`.
 */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { placeholderPattern, readmeSection } from '@acp-snapshot/core';
import { z } from 'zod';
import { type ModelStandIn, STAND_IN_TEXT, startModelStandIn } from './model.js';
import type { AgentTarget, PreparedTarget, PrepareInput } from './runner.js';

/** The part of a profile the kit uses, validated (other fields, e.g. normalize, are the harness's). */
const ProfileShape = z.looseObject({
  command: z.array(z.string().min(1)).min(1, 'the command needs at least the executable'),
  env: z.record(z.string(), z.string()).optional(),
  home: z.record(z.string(), z.string()).optional(),
  exitGraceMs: z.number().int().nonnegative().optional(),
  settleMs: z.number().int().nonnegative().optional(),
  exit: z.enum(['stdin', 'signal']).optional(),
  // The kit's client serves file reads and writes when advertised; it has no terminal to offer.
  clientCapabilities: z
    .looseObject({
      fs: z
        .looseObject({ readTextFile: z.boolean().optional(), writeTextFile: z.boolean().optional() })
        .optional(),
      terminal: z
        .literal(false, { error: 'the conformance client offers no terminal: leave terminal out or false' })
        .optional(),
    })
    .optional(),
});

/**
 * The part of an agent profile the kit reads. The harness's `AgentProfile` is one (its other fields, e.g.
 * normalize, are the harness's and pass through untouched).
 */
export type ConformanceProfile = z.infer<typeof ProfileShape>;

const TEMPLATE = placeholderPattern('', 'g');
const KNOWN_VARS = ['modelBaseUrl', 'home', 'cwd', 'tmp'];

/** Validates a profile value; the error names the source, each field and what to write instead. */
export function parseProfile(value: unknown, source: string): ConformanceProfile {
  const r = ProfileShape.safeParse(value);
  if (!r.success) {
    const problems = r.error.issues.map((i) => `${i.path.join('.') || '(profile)'}: ${i.message}`);
    throw new Error(
      `${source}: not an agent profile:\n  ${problems.join('\n  ')}\n` +
        'An agent profile is { command: [executable, ...args], env?: {NAME: value}, home?: {"relative/path": content}, exitGraceMs?, settleMs?, exit?: "stdin" | "signal", clientCapabilities?: {fs: {readTextFile, writeTextFile}} } ' +
        `(the AgentProfile of ${readmeSection('Public API')}).`,
    );
  }
  const profile: ConformanceProfile = r.data;
  for (const [where, text] of templated(profile)) {
    for (const m of text.matchAll(TEMPLATE))
      if (!KNOWN_VARS.includes(m[1]!))
        throw new Error(
          `${source}: ${where}: unknown placeholder {{${m[1]}}}; known: ${KNOWN_VARS.map((v) => `{{${v}}}`).join(', ')}`,
        );
  }
  for (const rel of Object.keys(profile.home ?? {})) homePath('/home', rel, source);
  return profile;
}

/** Every templated string of a profile with where it is. */
function templated(profile: ConformanceProfile): [string, string][] {
  return [
    ...Object.entries(profile.env ?? {}).map(([k, v]): [string, string] => [`env.${k}`, v]),
    ...Object.entries(profile.home ?? {}).map(([k, v]): [string, string] => [`home["${k}"]`, v]),
  ];
}

/** The absolute path of a HOME file; refuses paths that leave HOME. */
function homePath(home: string, rel: string, source: string): string {
  const n = normalize(rel);
  if (isAbsolute(rel) || n === '..' || n.startsWith('../'))
    throw new Error(
      `${source}: home["${rel}"]: a HOME file path must be relative to HOME and stay inside it`,
    );
  return join(home, n);
}

/**
 * Loads a profile file: `.json` (the profile object), or `.ts` / `.mjs` / `.js` (its default export, or an
 * export named `profile`).
 */
export async function loadProfile(file: string): Promise<ConformanceProfile> {
  const abs = resolve(file);
  let value: unknown;
  if (extname(abs) === '.json') {
    let text: string;
    try {
      text = readFileSync(abs, 'utf8');
    } catch (e) {
      throw new Error(`${file}: cannot read the profile (${(e as Error).message})`);
    }
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new Error(`${file}: not JSON (${(e as Error).message})`);
    }
  } else {
    const mod = (await import(pathToFileURL(abs).href)) as { default?: unknown; profile?: unknown };
    value = mod.default ?? mod.profile;
    if (value === undefined)
      throw new Error(`${file}: export the profile as the default export or as \`export const profile\``);
  }
  return parseProfile(value, file);
}

/** Whether a profile routes its model to the stand-in. */
function usesModel(profile: ConformanceProfile): boolean {
  return templated(profile).some(([, text]) => text.includes('{{modelBaseUrl}}'));
}

function expand(text: string, vars: Record<string, string>): string {
  return text.replace(TEMPLATE, (whole, name: string) => vars[name] ?? whole);
}

/** How a profile becomes a target. */
export interface ProfileTargetOptions {
  /** The name in reports (default: the command line). */
  name?: string;
  /** Variables added to the profile's env (e.g. what the command line passes through). */
  extraEnv?: Record<string, string>;
  /** The agent processes' working directory (default: the check's scratch directory). */
  processCwd?: string;
}

/** A conformance target for a profile. */
export function profileTarget(profile: ConformanceProfile, opts: ProfileTargetOptions = {}): AgentTarget {
  const [command, ...args] = profile.command as [string, ...string[]];
  const name = opts.name ?? profile.command.join(' ');
  const extraEnv = opts.extraEnv ?? {};
  return {
    name,
    command,
    args,
    ...(opts.processCwd !== undefined && { processCwd: opts.processCwd }),
    ...(profile.exitGraceMs !== undefined && { exitGraceMs: profile.exitGraceMs }),
    ...(profile.settleMs !== undefined && { settleMs: profile.settleMs }),
    ...(profile.exit !== undefined && { exit: profile.exit }),
    ...(profile.clientCapabilities !== undefined && {
      clientCapabilities: {
        fs: {
          readTextFile: profile.clientCapabilities.fs?.readTextFile === true,
          writeTextFile: profile.clientCapabilities.fs?.writeTextFile === true,
        },
        terminal: false,
      },
    }),
    async prepare({ root, cwd, home }: PrepareInput): Promise<PreparedTarget> {
      // The file a model-turn check asks the agent to read.
      writeFileSync(join(cwd, 'README.md'), 'A workspace for the ACP conformance suite.\n');
      const model: ModelStandIn | undefined = usesModel(profile) ? await startModelStandIn(cwd) : undefined;
      const vars = { home, cwd, tmp: join(root, 'tmp'), ...(model && { modelBaseUrl: model.url }) };
      for (const [rel, content] of Object.entries(profile.home ?? {})) {
        const path = homePath(home, rel, name);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, expand(content, vars));
      }
      const env: Record<string, string> = { ...extraEnv };
      for (const [k, v] of Object.entries(profile.env ?? {})) env[k] = expand(v, vars);
      return {
        env,
        ...(model && { modelText: STAND_IN_TEXT }),
        inconclusive: () => model?.unsupported(),
        dispose: async () => model?.close(),
      };
    },
  };
}
