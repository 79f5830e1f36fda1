// The model emulator's script format: an ordered list of scripted responses, served in order (or by `match`).

import { readFileSync } from 'node:fs';
import { handWrittenFileText } from '@acp-snapshot/core';
import { z } from 'zod';
import { ScriptVars } from './template.js';

/** Where the script format is documented; named in every script error. */
export const SCRIPT_DOC = 'emulator/README.md';

/** A script that failed to load or validate; the message names the file and the JSON path. */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
}

const count = z.number().int().nonnegative();

/** Finish reasons DeepSeek sends (tool_calls is implied by toolCalls unless overridden). */
export const ScriptFinish = z.enum([
  'stop',
  'length',
  'tool_calls',
  'content_filter',
  'insufficient_system_resource',
]);

/** Usage figures to report; each one left out is estimated from the text (characters / 4). */
export const ScriptUsage = z.strictObject({
  promptTokens: count.optional(),
  completionTokens: count.optional(),
  reasoningTokens: count.optional(),
  cacheHitTokens: count.optional(),
});

/** One tool call the model makes; object arguments are serialized with JSON.stringify. */
export const ScriptToolCall = z.strictObject({
  name: z.string().min(1),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())], {
    error: 'expected a JSON string or an object',
  }),
  /** Overrides the generated `call_N` id. */
  id: z.string().min(1).optional(),
  /**
   * A Responses custom tool call (`custom_tool_call`, free-form `input`: the arguments text), as a model calls a
   * tool declared `type: "custom"` (codex's `exec`). OpenAI Responses only: the other formats send an
   * ordinary tool call.
   */
  custom: z.boolean().optional(),
});

/** What the model answers: reasoning, then text, then tool calls, then the finish. */
export const ScriptReply = z.strictObject({
  reasoning: z.string().optional(),
  text: z.string().optional(),
  toolCalls: z.array(ScriptToolCall).optional(),
  /** Default: `tool_calls` when toolCalls is non-empty, else `stop`. */
  finish: ScriptFinish.optional(),
  usage: ScriptUsage.optional(),
});
export type ScriptReply = z.infer<typeof ScriptReply>;

/** How a reply is cut into stream chunks (all deterministic). */
export const ScriptChunking = z.strictObject({
  /** Longest text / reasoning delta, in characters (default 6; words are kept whole when they fit). */
  textPieceChars: z.number().int().positive().optional(),
  /** Longest tool-call arguments delta, in characters (default 10). */
  argsPieceChars: z.number().int().positive().optional(),
  /** A `: keep-alive` comment before the first chunk and after every N data chunks (default 4; 0 = none). */
  keepAliveEvery: count.optional(),
  /** Where usage goes: its own chunk with empty choices (default), the finish chunk, or nowhere. */
  usage: z.enum(['separate', 'finish', 'none']).optional(),
  /** Stream the argument pieces of parallel tool calls round-robin instead of one call after the other. */
  interleaveToolCalls: z.boolean().optional(),
});
export type ScriptChunking = z.infer<typeof ScriptChunking>;

const errorFields = {
  message: z.string().optional(),
  type: z.string().optional(),
  code: z.string().nullable().optional(),
};
/** Mid-stream failures stream a prefix of this reply first (default: a short text). */
const prefix = {
  afterChunks: count,
  reply: ScriptReply.optional(),
  chunking: ScriptChunking.optional(),
};

/** A failure to inject instead of a reply. */
export const ScriptFail = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('http'),
    status: z.number().int().min(400).max(599),
    ...errorFields,
    /** Sent as `retry-after-ms` so a client's retry backoff is short in tests. */
    retryAfterMs: count.optional(),
  }),
  /** After N data chunks the connection ends: destroyed mid-body, or (graceful) a clean end without [DONE]. */
  z.strictObject({ kind: z.literal('cut'), ...prefix, graceful: z.boolean().optional() }),
  /** After N data chunks a data line that is not JSON, then the body ends. */
  z.strictObject({ kind: z.literal('malformed'), ...prefix, data: z.string().optional() }),
  /** After N data chunks an `{"error": {...}}` data line, then the body ends. */
  z.strictObject({ kind: z.literal('stream_error'), ...prefix, ...errorFields }),
  /** No bytes at all (or, with afterChunks, nothing after N data chunks) until the client disconnects. */
  z.strictObject({
    kind: z.literal('hang'),
    afterChunks: count.optional(),
    reply: ScriptReply.optional(),
    chunking: ScriptChunking.optional(),
  }),
]);
export type ScriptFail = z.infer<typeof ScriptFail>;

/**
 * Which request an entry answers: the first one that matches (an agent's background calls, a router call),
 * instead of the next one in order. Every field given must hold.
 */
export const ScriptMatch = z
  .strictObject({
    /** The request's path, without the query: `/v1/messages`, `/v1beta/models/gemini-2.5-flash:generateContent`. */
    path: z.string().startsWith('/', 'a path like "/v1/messages"').optional(),
    /** A substring of the raw request body, e.g. a phrase of the title-generation prompt. */
    bodyIncludes: z.string().min(1).optional(),
  })
  .refine((m) => m.path !== undefined || m.bodyIncludes !== undefined, {
    message: 'give "path", "bodyIncludes" or both',
  });
export type ScriptMatch = z.infer<typeof ScriptMatch>;

const ReplyEntry = z.strictObject({
  reply: ScriptReply,
  chunking: ScriptChunking.optional(),
  match: ScriptMatch.optional(),
  note: z.string().optional(),
});
const FailEntry = z.strictObject({
  fail: ScriptFail,
  match: ScriptMatch.optional(),
  note: z.string().optional(),
});
/** One scripted response. */
export type ScriptEntry = z.infer<typeof ReplyEntry> | z.infer<typeof FailEntry>;

/**
 * A whole script: `{ "responses": [...] }`; an entry with `match` answers the first request it matches,
 * the others answer, in order, the requests no `match` claims.
 */
export interface Script {
  description?: string;
  /** Values of the request templated into answers as `${name}` (template.ts). */
  vars?: ScriptVars;
  responses: ScriptEntry[];
}

const TopLevel = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  vars: ScriptVars.optional(),
  responses: z.array(z.unknown()),
});

/** `["responses", 2, "reply", "text"]` -> `responses[2].reply.text`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(top level)';
}

function fail(file: string, lines: string[]): never {
  throw new ScriptError(
    `emulator script ${file}: ${lines.length === 1 ? lines[0] : `\n  ${lines.join('\n  ')}`}\n(see ${SCRIPT_DOC} for the format)`,
  );
}

function issuesOf(error: z.ZodError, base: PropertyKey[]): string[] {
  return error.issues.map((i) => `${formatPath([...base, ...i.path])}: ${i.message}`);
}

/** Validates a parsed script value; `file` names it in errors (a path, or a label like `<inline>`). */
export function parseScript(value: unknown, file = '<inline script>'): Script {
  const top = TopLevel.safeParse(value);
  if (!top.success) fail(file, issuesOf(top.error, []));
  const responses: ScriptEntry[] = [];
  const problems: string[] = [];
  top.data.responses.forEach((raw, i) => {
    const base = ['responses', i];
    const isObj = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
    // Pick the schema by key first so errors talk about the entry the author meant, not a union.
    const schema = isObj && 'reply' in raw ? ReplyEntry : isObj && 'fail' in raw ? FailEntry : undefined;
    if (!schema) {
      problems.push(`${formatPath(base)}: expected an object with a "reply" or a "fail" key`);
      return;
    }
    const r = schema.safeParse(raw);
    if (r.success) responses.push(r.data);
    else problems.push(...issuesOf(r.error, base));
  });
  if (problems.length) fail(file, problems);
  return {
    ...(top.data.description !== undefined && { description: top.data.description }),
    ...(top.data.vars !== undefined && { vars: top.data.vars }),
    responses,
  };
}

/** Reads, parses and validates a script file. */
export function loadScript(path: string): Script {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new ScriptError(`emulator script ${path}: cannot read it: ${(e as Error).message}`);
  }
  let text: string;
  try {
    text = handWrittenFileText(bytes, path);
  } catch (e) {
    throw new ScriptError(`emulator script ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    fail(path, [`not valid JSON: ${(e as Error).message}`]);
  }
  return parseScript(value, path);
}
