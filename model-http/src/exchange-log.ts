/**
 * The exchange log (`exchanges.jsonl`): the committed form of a scenario's model calls. Line 1 is a
 * header naming the format and its version; each further line is one exchange, as canonical JSON
 * (keys sorted at every depth), in canonical order (canonical-order.ts: not the order concurrent requests
 * happened to arrive in, so recording a test twice gives the same bytes). Bulk values of request bodies
 * (system prompts, tool schemas: any string or array whose JSON passes `sidecarBytes`) live in the
 * shared sidecars `<sha256>.json`, referenced as `{"sidecar": "<sha256>"}` as the session log does.
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, formatIssuePath, type SidecarSource, sidecarHash } from '@acp-snapshot/core';
import { z } from 'zod';
import { canonicalOrder } from './canonical-order.js';
import type { Frame } from './frames.js';
import { defineKey, type JsonValue, type NormalizedRequest } from './normalize.js';

export const EXCHANGE_LOG_FORMAT = 'acp-snapshot/model-exchanges';
export const EXCHANGE_LOG_VERSION = 1;
/** Default size (bytes of JSON) from which a string or array of a request body goes to a sidecar. */
export const DEFAULT_SIDECAR_BYTES = 2048;

/** One model call: the normalized request and the response exactly as served. */
export interface Exchange {
  request: NormalizedRequest;
  response: {
    status: number;
    /** The kept response headers (lower-case names; `content-type` by default). */
    headers: Record<string, string>;
    frames: Frame[];
    /**
     * The agent closed the connection before the answer ended (a cancel): replay serves the frames, then
     * keeps the connection open until the agent closes it, as the upstream did.
     */
    aborted?: true;
  };
}

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64');
const AtMs = z.number().int().nonnegative().optional();
export const FrameSchema = z.union([
  z.strictObject({ text: z.string(), atMs: AtMs }),
  z.strictObject({ base64: Base64, atMs: AtMs }),
]);

export const RequestSchema = z
  .strictObject({
    method: z.string().regex(/^[A-Z]+$/, 'expected an upper-case HTTP method'),
    path: z.string().startsWith('/'),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.json().optional(),
    text: z.string().optional(),
    base64: Base64.optional(),
  })
  .refine((r) => [r.body, r.text, r.base64].filter((x) => x !== undefined).length <= 1, {
    message: 'at most one of body, text, base64',
  });

export const ExchangeSchema = z.strictObject({
  request: RequestSchema,
  response: z.strictObject({
    status: z.number().int().min(100).max(599),
    headers: z.record(z.string(), z.string()),
    frames: z.array(FrameSchema),
    aborted: z.literal(true).optional(),
  }),
});

export const HeaderSchema = z.strictObject({
  format: z.literal(EXCHANGE_LOG_FORMAT),
  version: z.literal(EXCHANGE_LOG_VERSION),
});

/** A parse failure: `file:line: path: what`, and what to do. */
export class ExchangeLogError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly path: string,
    what: string,
    fix: string,
  ) {
    super(`${file}:${line}: ${path}: ${what}; ${fix}`);
    this.name = 'ExchangeLogError';
  }
}

export interface SerializeOptions {
  /** JSON size from which a string or array goes to a sidecar (default {@link DEFAULT_SIDECAR_BYTES}). */
  sidecarBytes?: number;
}

/** The content of a sidecar: pretty JSON, a string as its lines (so the committed file diffs line by line). */
export function sidecarContent(value: JsonValue): string {
  const doc =
    typeof value === 'string' ? { text: value.split('\n') } : { json: JSON.parse(canonicalJson(value)) };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function fromSidecar(content: string): JsonValue {
  const doc = JSON.parse(content) as { text?: unknown; json?: JsonValue };
  if (Array.isArray(doc.text) && doc.text.every((l) => typeof l === 'string')) return doc.text.join('\n');
  if ('json' in doc && doc.json !== undefined) return doc.json;
  throw new Error('expected {"text": [lines]} or {"json": value}');
}

/** The body with bulk values moved out, bottom-up (a system prompt goes out, the messages around it stay). */
function extract(value: JsonValue, limit: number, sidecars: Record<string, string>): JsonValue {
  const put = (v: JsonValue): JsonValue => {
    const content = sidecarContent(v);
    const hash = sidecarHash(content);
    sidecars[hash] = content;
    return { sidecar: hash };
  };
  if (typeof value === 'string') return JSON.stringify(value).length > limit ? put(value) : value;
  if (Array.isArray(value)) {
    const inner = value.map((v) => extract(v, limit, sidecars));
    return JSON.stringify(inner).length > limit ? put(inner) : inner;
  }
  if (value && typeof value === 'object') {
    const out: { [k: string]: JsonValue } = {};
    for (const k of Object.keys(value)) defineKey(out, k, extract(value[k]!, limit, sidecars));
    return out;
  }
  return value;
}

/**
 * The canonical text of an exchange log and the sidecars it references (sha256 -> content); the
 * exchanges are written in {@link canonicalOrder}.
 */
export function serializeExchanges(
  exchanges: readonly Exchange[],
  options: SerializeOptions = {},
): { text: string; sidecars: Record<string, string> } {
  const limit = options.sidecarBytes ?? DEFAULT_SIDECAR_BYTES;
  const sidecars: Record<string, string> = {};
  const lines = [canonicalJson({ format: EXCHANGE_LOG_FORMAT, version: EXCHANGE_LOG_VERSION })];
  for (const ex of canonicalOrder(exchanges)) {
    const request = { ...ex.request };
    if (request.body !== undefined) request.body = extract(request.body, limit, sidecars);
    lines.push(canonicalJson({ request, response: ex.response }));
  }
  return { text: `${lines.join('\n')}\n`, sidecars };
}

/** Writes the log and any sidecar not yet in `sidecarsDir`. */
export function writeExchangeLog(
  file: string,
  exchanges: readonly Exchange[],
  options: SerializeOptions & { sidecarsDir: string },
): void {
  const { text, sidecars } = serializeExchanges(exchanges, options);
  mkdirSync(options.sidecarsDir, { recursive: true });
  for (const [hash, content] of Object.entries(sidecars)) {
    const path = join(options.sidecarsDir, `${hash}.json`);
    if (!existsSync(path)) writeFileSync(path, content);
  }
  writeFileSync(file, text);
}

export interface ParseOptions {
  /** Where the sidecars are: a directory of `<sha256>.json`, or a map sha256 -> content. */
  sidecars: SidecarSource;
  /** What the error tells the reader to do (default: re-record the scenario). */
  fix?: string;
}

function isRef(v: unknown): v is { sidecar: string } {
  return (
    !!v &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.keys(v).length === 1 &&
    typeof (v as { sidecar?: unknown }).sidecar === 'string' &&
    /^[0-9a-f]{64}$/.test((v as { sidecar: string }).sidecar)
  );
}

function loadSidecar(hash: string, source: SidecarSource): { content?: string; where: string } {
  if (typeof source !== 'string') return { content: source[hash], where: `sidecar ${hash}` };
  const where = join(source, `${hash}.json`);
  return { content: existsSync(where) ? readFileSync(where, 'utf8') : undefined, where };
}

/** Every sidecar hash a parsed (unresolved) body references. */
function refsOf(value: unknown, at: string, out: Array<{ hash: string; at: string }>): void {
  if (isRef(value)) out.push({ hash: value.sidecar, at });
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) refsOf(v, `${at}[${i}]`, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) refsOf(v, `${at}.${k}`, out);
}

/**
 * The sha256 names of the sidecars an exchange log references, with those its sidecars reference in
 * turn when `sidecars` says where they are (for sidecar housekeeping and the guards).
 */
export function referencedSidecars(text: string, sidecars?: SidecarSource): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown) => {
    const refs: Array<{ hash: string; at: string }> = [];
    refsOf(value, '', refs);
    for (const { hash } of refs) {
      if (found.has(hash)) continue;
      found.add(hash);
      const content = sidecars === undefined ? undefined : loadSidecar(hash, sidecars).content;
      if (content !== undefined) visit(JSON.parse(content));
    }
  };
  for (const line of text.split('\n').slice(1)) if (line.trim()) visit(JSON.parse(line));
  return found;
}

/** Parses an exchange log, resolving its sidecars; every error names file:line and the JSON path. */
export function parseExchanges(text: string, file: string, options: ParseOptions): Exchange[] {
  const fix = options.fix ?? 're-record the scenario (the exchange log is generated: do not edit it by hand)';
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const parseAt = (i: number): unknown => {
    try {
      return JSON.parse(lines[i]!);
    } catch (e) {
      throw new ExchangeLogError(file, i + 1, '(line)', `not valid JSON (${(e as Error).message})`, fix);
    }
  };
  if (lines.length === 0)
    throw new ExchangeLogError(file, 1, '(line)', 'empty file, expected the header line', fix);
  const header = HeaderSchema.safeParse(parseAt(0));
  if (!header.success) {
    const issue = header.error.issues[0]!;
    const what = `${issue.message} (expected {"format":"${EXCHANGE_LOG_FORMAT}","version":${EXCHANGE_LOG_VERSION}})`;
    throw new ExchangeLogError(file, 1, formatIssuePath(issue.path), what, fix);
  }
  const out: Exchange[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') throw new ExchangeLogError(file, i + 1, '(line)', 'blank line', fix);
    const raw = parseAt(i);
    const res = ExchangeSchema.safeParse(raw);
    if (!res.success) {
      const issue = res.error.issues[0]!;
      throw new ExchangeLogError(file, i + 1, formatIssuePath(issue.path), issue.message, fix);
    }
    // The parsed line, not zod's copy: zod rebuilds objects by assignment, which drops a `__proto__` key
    // that JSON.parse keeps as data (and a request body may hold one).
    const ex = raw as Exchange;
    if (ex.request.body !== undefined) ex.request.body = resolve(ex.request.body, 'request.body', i + 1);
    out.push(ex);
  }
  return out;

  function resolve(value: JsonValue, at: string, line: number): JsonValue {
    if (isRef(value)) {
      const { content, where } = loadSidecar(value.sidecar, options.sidecars);
      if (content === undefined) throw new ExchangeLogError(file, line, at, `${where} is missing`, fix);
      if (sidecarHash(content) !== value.sidecar)
        throw new ExchangeLogError(
          file,
          line,
          at,
          `${where}: content does not match its sha256 name (edited by hand?)`,
          fix,
        );
      let inner: JsonValue;
      try {
        inner = fromSidecar(content);
      } catch (e) {
        throw new ExchangeLogError(file, line, at, `${where}: ${(e as Error).message}`, fix);
      }
      // A sidecar's value may itself reference sidecars (bulk moved out bottom-up).
      return resolve(inner, at, line);
    }
    if (Array.isArray(value)) return value.map((v, i) => resolve(v, `${at}[${i}]`, line));
    if (value && typeof value === 'object') {
      const o: { [k: string]: JsonValue } = {};
      for (const k of Object.keys(value)) defineKey(o, k, resolve(value[k]!, `${at}.${k}`, line));
      return o;
    }
    return value;
  }
}

/** Reads and parses an exchange log file. */
export function readExchangeLog(file: string, options: ParseOptions): Exchange[] {
  return parseExchanges(readFileSync(file, 'utf8'), file, options);
}
