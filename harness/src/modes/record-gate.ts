/**
 * Record and refresh: who may record (key gating, CI refusal), scrubbing secrets before anything
 * reaches disk, and writing a scenario's fixtures and sidecars.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { RootReplacer } from '@acp-snapshot/core';
import { scrubCredentials } from '@acp-snapshot/model-http';
import { machineRoots } from '../roots/roots.js';
import { isIdentifyingHome, isIdentifyingUserName } from '../roots/secrets.js';

/** The model endpoint a recording uses. */
export type RecordTarget =
  | { kind: 'deepseek'; apiKey: string }
  | { kind: 'server'; baseUrl: string; apiKey: string }
  | { kind: 'emulator'; apiKey: string };

/** Recording is not allowed or not possible; the message says what to set. */
export class RecordGateError extends Error {
  override name = 'RecordGateError';
}

/** The key passed to a local OpenAI-compatible server that needs none (never a secret). */
export const LOCAL_PLACEHOLDER_KEY = 'local-no-key';

/** Whether a base URL points at this machine. */
export function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * Decides what a recording talks to, from `DEEPSEEK_API_KEY` and `ACP_SNAPSHOT_BASE_URL`
 * (`emulator` = the bundled model emulator with `scripts/emulator-scripts/NAME.json`).
 */
export function recordTarget(env: NodeJS.ProcessEnv): RecordTarget {
  const baseUrl = env.ACP_SNAPSHOT_BASE_URL?.trim();
  const key = env.DEEPSEEK_API_KEY?.trim();
  if (!baseUrl && !key) {
    throw new RecordGateError(
      'record mode needs a model. Set DEEPSEEK_API_KEY=... (DeepSeek), or ACP_SNAPSHOT_BASE_URL=http://127.0.0.1:PORT/v1 ' +
        '(any OpenAI-compatible server: vLLM, Ollama, LM Studio), or ACP_SNAPSHOT_BASE_URL=emulator ' +
        '(the bundled emulator, scripted by scripts/emulator-scripts/NAME.json).',
    );
  }
  const local = baseUrl === 'emulator' || (baseUrl !== undefined && baseUrl !== '' && isLoopback(baseUrl));
  if (env.CI && !local) {
    throw new RecordGateError(
      `record mode is refused when CI is set: it would call a real model${baseUrl ? ` at ${baseUrl}` : ''}. ` +
        'Record on a developer machine, or point ACP_SNAPSHOT_BASE_URL at a loopback server (or "emulator").',
    );
  }
  if (baseUrl === 'emulator') return { kind: 'emulator', apiKey: LOCAL_PLACEHOLDER_KEY };
  if (baseUrl) {
    if (!/^https?:\/\//.test(baseUrl)) {
      throw new RecordGateError(
        `ACP_SNAPSHOT_BASE_URL must be an http(s) URL or "emulator", got ${JSON.stringify(baseUrl)}`,
      );
    }
    return { kind: 'server', baseUrl, apiKey: key || LOCAL_PLACEHOLDER_KEY };
  }
  return { kind: 'deepseek', apiKey: key! };
}

/** What the scrubber removes. */
export interface ScrubSecrets {
  /** Secret values (the API key) replaced verbatim. */
  values: string[];
  /** The real home directory. */
  home?: string;
  /** The real user name. */
  user?: string;
}

/** This machine's secrets for a recording with `apiKey`. */
export function machineSecrets(apiKey?: string): ScrubSecrets {
  // The same real home every surface hides (roots.ts); scrubbing is the last line behind the projection.
  const { realHome } = machineRoots();
  const s: ScrubSecrets = {
    values: apiKey && apiKey !== LOCAL_PLACEHOLDER_KEY ? [apiKey] : [],
    ...(realHome ? { home: realHome } : {}),
  };
  try {
    s.user = userInfo().username;
  } catch {
    // No passwd entry: nothing to scrub.
  }
  return s;
}

/**
 * Removes secrets from text bound for disk: key values and every credential format of the one table
 * (model-http credentials.ts, which the guards check by too), the real home directory and the user name.
 */
export function scrubSecrets(text: string, secrets: ScrubSecrets): string {
  const out = scrubCredentials(text, { values: secrets.values });
  // The same roots, names and boundary rule as every other surface (session-log roots.ts).
  const user = isIdentifyingUserName(secrets.user) ? secrets.user : undefined;
  const realHome = isIdentifyingHome(secrets.home) ? secrets.home : undefined;
  return RootReplacer.of({ realHome, user }).text(out);
}

/** A scenario's fixture files as written by record and refresh. */
export interface ScenarioFixtureWrite {
  dir: string;
  sidecarsDir: string;
  sessionText: string;
  stdoutText: string;
  /** workspace.expected.json (see workspace.ts). */
  workspaceText: string;
  sidecars: Record<string, string>;
}

/**
 * Writes session.jsonl, stdout.expected.jsonl and workspace.expected.json (scrubbed) and each sidecar once: an existing
 * sidecar is left as is (its name is the hash of its content), so each distinct prompt or tool set
 * is committed once. Returns the sidecar files newly written.
 */
export async function writeScenarioFixtures(
  w: ScenarioFixtureWrite,
  secrets: ScrubSecrets,
): Promise<string[]> {
  await mkdir(w.dir, { recursive: true });
  await mkdir(w.sidecarsDir, { recursive: true });
  const written: string[] = [];
  for (const [hash, content] of Object.entries(w.sidecars).sort()) {
    const file = join(w.sidecarsDir, `${hash}.json`);
    const existing = await readFile(file, 'utf8').catch(() => undefined);
    if (existing === undefined) {
      const clean = scrubSecrets(content, secrets);
      if (clean !== content) {
        throw new Error(
          `sidecar ${hash} holds a secret (API key, home path or user name); the agent put it into its prompt or tool schemas. Fix that, then record again.`,
        );
      }
      await writeFile(file, content, { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
      written.push(file);
    }
  }
  await writeFile(join(w.dir, 'session.jsonl'), scrubSecrets(w.sessionText, secrets));
  await writeFile(join(w.dir, 'stdout.expected.jsonl'), scrubSecrets(w.stdoutText, secrets));
  await writeFile(join(w.dir, 'workspace.expected.json'), scrubSecrets(w.workspaceText, secrets));
  return written;
}
