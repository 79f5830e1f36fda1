// Fixture projection: the committed form of a session log. Envelopes dropped, volatile roots (and
// their filesystem aliases) replaced by {{name}}, prompt and tool-schema bulk moved to sidecars
// named by the sha256 of their content. Projecting a projection changes nothing.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { serializeLog } from './codec.js';
import { type LogRecord, type SessionHeader, SidecarRef, ToolSchema } from './events.js';
import type { VolatileRoots } from './fingerprint.js';

/** sha256 hex of a sidecar's content: its name (`<sha256>.json`). */
export function sidecarHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * The sidecar file content of a system prompt: pretty JSON with the prompt as an array of lines, so
 * the committed file reads (and diffs) line by line.
 */
export function promptSidecar(prompt: string): string {
  return `${JSON.stringify({ systemPrompt: prompt.split('\n') }, null, 2)}\n`;
}

/** The sidecar file content of a tool set: pretty JSON. */
export function toolsSidecar(tools: ToolSchema[]): string {
  return `${JSON.stringify({ tools }, null, 2)}\n`;
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/**
 * Every spelling of each root: the path itself, its realpath, and the `/private/...` twin (macOS
 * /tmp and /var) when the filesystem says it is the same directory.
 */
export function rootAliases(roots: VolatileRoots): Array<[name: string, path: string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, raw] of Object.entries(roots)) {
    if (typeof raw !== 'string' || raw.length <= 1) continue;
    const spellings = new Set([trimSlash(raw)]);
    if (existsSync(raw)) {
      const real = realpathSync(raw);
      spellings.add(trimSlash(real));
      for (const p of [...spellings]) {
        const twin = p.startsWith('/private/') ? p.slice('/private'.length) : `/private${p}`;
        if (existsSync(twin) && realpathSync(twin) === real) spellings.add(twin);
      }
    }
    for (const s of spellings) if (s.length > 1) pairs.push([name, s]);
  }
  // Longest first, so a root inside another root (cwd inside home) wins.
  return pairs.sort((a, b) => b[1].length - a[1].length);
}

/** Replaces every spelling of every root in all strings of `value` by `{{name}}`. */
export function replaceRootAliases<T>(value: T, roots: VolatileRoots): T {
  const pairs = rootAliases(roots).map(([name, path]) => [path, `{{${name}}}`] as const);
  if (pairs.length === 0) return value;
  // One walk over the value for all spellings (longest first), like fingerprint.ts's replaceRoots.
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let s = v;
      for (const [path, placeholder] of pairs) if (s.includes(path)) s = s.split(path).join(placeholder);
      return s;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const k in v) out[k] = walk((v as Record<string, unknown>)[k]);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/** The fixture projection of a log: its text and the sidecars it references (sha256 -> file content). */
export interface ProjectedLog {
  text: string;
  sidecars: Record<string, string>;
}

/**
 * Projects records for a committed fixture: drops seq/ts envelopes (payloads and references stay),
 * replaces roots and their aliases with `{{name}}` (cwd -> `{{cwd}}`), and moves the system prompt
 * and tool schemas into sidecars. Idempotent: the projection of a projection is itself (with no new sidecars).
 */
export function projectLog(records: readonly LogRecord[], opts: { roots: VolatileRoots }): ProjectedLog {
  const sidecars: Record<string, string> = {};
  const put = (content: string) => {
    const hash = sidecarHash(content);
    sidecars[hash] = content;
    return { sidecar: hash };
  };
  const projected: LogRecord[] = [];
  for (const r of replaceRootAliases(records, opts.roots)) {
    const e = r.event;
    if (e.type !== 'session/header') {
      projected.push({ event: e });
      continue;
    }
    const header: SessionHeader = { ...e };
    if (typeof header.systemPrompt === 'string')
      header.systemPrompt = put(promptSidecar(header.systemPrompt));
    if (Array.isArray(header.tools)) header.tools = put(toolsSidecar(header.tools));
    projected.push({ event: header });
  }
  return { text: serializeLog(projected), sidecars };
}

/** Where sidecars come from: a directory of `<sha256>.json` files, or a map sha256 -> content. */
export type SidecarSource = string | Record<string, string>;

function sidecarContent(ref: SidecarRef, source: SidecarSource): { content: string; where: string } {
  if (typeof source !== 'string') {
    const content = source[ref.sidecar];
    if (content === undefined)
      throw new Error(`sidecar ${ref.sidecar} is missing from the given sidecar map`);
    return { content, where: `sidecar ${ref.sidecar}` };
  }
  const file = join(source, `${ref.sidecar}.json`);
  if (!existsSync(file)) {
    throw new Error(
      `${file}: sidecar referenced by the session header is missing; re-record or refresh the scenario`,
    );
  }
  return { content: readFileSync(file, 'utf8'), where: file };
}

/** Reads a sidecar and checks that its content still hashes to its name. */
function loadSidecarJson(
  ref: SidecarRef,
  source: SidecarSource,
): { value: Record<string, unknown>; where: string } {
  const { content, where } = sidecarContent(ref, source);
  if (sidecarHash(content) !== ref.sidecar) {
    throw new Error(
      `${where}: content does not match its sha256 name (edited by hand?); ` +
        'sidecars are generated: refresh the scenario instead of editing them',
    );
  }
  try {
    return { value: JSON.parse(content) as Record<string, unknown>, where };
  } catch (e) {
    throw new Error(`${where}: not valid JSON (${(e as Error).message})`);
  }
}

/** The system prompt of a header, loading it from its sidecar when projected. */
export function resolveSystemPrompt(header: SessionHeader, source: SidecarSource): string {
  if (typeof header.systemPrompt === 'string') return header.systemPrompt;
  const { value, where } = loadSidecarJson(header.systemPrompt, source);
  const lines = value.systemPrompt;
  if (!Array.isArray(lines) || !lines.every((l) => typeof l === 'string')) {
    throw new Error(`${where}: expected {"systemPrompt": [lines...]}`);
  }
  return lines.join('\n');
}

/** The tool schemas of a header, loading them from their sidecar when projected. */
export function resolveTools(header: SessionHeader, source: SidecarSource): ToolSchema[] {
  if (Array.isArray(header.tools)) return header.tools;
  const { value, where } = loadSidecarJson(header.tools, source);
  const res = ToolSchema.array().safeParse(value.tools);
  if (!res.success) {
    throw new Error(
      `${where}: expected {"tools": [...]}: tools${JSON.stringify(res.error.issues[0]?.path ?? [])}`,
    );
  }
  return res.data;
}

/** The header with its sidecar references replaced by their content (for readers that need the prompt). */
export function inlineSidecars(header: SessionHeader, source: SidecarSource): SessionHeader {
  return {
    ...header,
    systemPrompt: resolveSystemPrompt(header, source),
    tools: resolveTools(header, source),
  };
}

/** Whether a header field is a sidecar reference. */
export function isSidecarRef(value: unknown): value is SidecarRef {
  return SidecarRef.safeParse(value).success;
}
