// What the emulator puts on the wire: DeepSeek's chat.completion(.chunk) shapes, built deterministically.
import { errorEnvelope } from '@acp-snapshot/core';
import type { ScriptChunking, ScriptReply } from './script.js';

/** Per-response identity: counters, never clocks or randomness. */
export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
  /** The response's number N (its script entry), for ids like `resp_emu_N`. */
  index: number;
  /** Hands out the next `call_N` id (with another prefix: `toolu_emu_N`), counting across the run. */
  nextToolCallId: (prefix?: string) => string;
  /** Characters of the request's messages + tools, for the prompt-token estimate. */
  promptChars: number;
}

/** A chat.completion.chunk (or any JSON data line). */
export type Chunk = Record<string, unknown>;

/** Fingerprint sent on every completion, like the provider's `system_fingerprint`. */
const SYSTEM_FINGERPRINT = 'fp_emulator';
/** The chunking defaults of every format (script.ts documents them). */
export const DEFAULT_TEXT_PIECE = 6;
export const DEFAULT_ARGS_PIECE = 10;
const DEFAULT_KEEP_ALIVE_EVERY = 4;

/** Token estimate used for every usage figure the script leaves out. */
export function tokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Splits by code point into pieces of at most `max` characters. */
export function splitChars(s: string, max: number): string[] {
  const cps = Array.from(s);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += max) out.push(cps.slice(i, i + max).join(''));
  return out;
}

/**
 * Cuts text into small deltas the way a tokenizer-driven stream looks: words with their leading
 * whitespace, long words split at `max` characters.
 */
export function pieces(text: string, max: number): string[] {
  const words = text.match(/\s*\S+|\s+/g) ?? [];
  return words.flatMap((w) => (Array.from(w).length <= max ? [w] : splitChars(w, max)));
}

/** Token counts of a reply, every wire format's usage is built from: the script's, or estimated. */
export interface UsageFigures {
  prompt: number;
  completion: number;
  reasoning: number;
  hit: number;
}

/** The reply's usage figures; `argsChars` counts its tool-call arguments, `promptChars` the request. */
export function usageFigures(reply: ScriptReply, argsChars: number, promptChars: number): UsageFigures {
  const u = reply.usage ?? {};
  const reasoningChars = Array.from(reply.reasoning ?? '').length;
  return {
    prompt: u.promptTokens ?? tokens(promptChars),
    reasoning: u.reasoningTokens ?? tokens(reasoningChars),
    completion:
      u.completionTokens ??
      Math.max(1, tokens(reasoningChars + Array.from(reply.text ?? '').length + argsChars)),
    hit: u.cacheHitTokens ?? 0,
  };
}

/** Characters of a reply's tool-call arguments (for the completion-token estimate). */
export function argsCharsOf(reply: ScriptReply): number {
  return (reply.toolCalls ?? []).reduce((n, c) => n + Array.from(argsText(c.arguments)).length, 0);
}

/** The OpenAI-style usage object DeepSeek reports (with its cache-hit fields). */
export function usageObject(
  reply: ScriptReply,
  argsChars: number,
  promptChars: number,
): Record<string, unknown> {
  const { prompt, completion, reasoning, hit } = usageFigures(reply, argsChars, promptChars);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: hit },
    completion_tokens_details: { reasoning_tokens: reasoning },
    prompt_cache_hit_tokens: hit,
    prompt_cache_miss_tokens: Math.max(0, prompt - hit),
  };
}

export function argsText(args: string | Record<string, unknown>): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** The finish reason a reply ends with. */
export function finishOf(reply: ScriptReply): string {
  return reply.finish ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
}

/** The data chunks of one streamed reply, in order (keep-alives and [DONE] are added by `frames`). */
export function streamChunks(
  reply: ScriptReply,
  chunking: ScriptChunking | undefined,
  who: ResponseIdentity,
): Chunk[] {
  const textMax = chunking?.textPieceChars ?? DEFAULT_TEXT_PIECE;
  const argsMax = chunking?.argsPieceChars ?? DEFAULT_ARGS_PIECE;
  const usagePlacement = chunking?.usage ?? 'separate';
  const thinking = reply.reasoning !== undefined;
  const envelope = (choices: unknown[], extra: Record<string, unknown> = {}): Chunk => ({
    id: who.id,
    object: 'chat.completion.chunk',
    created: who.created,
    model: who.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices,
    ...extra,
  });
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });
  const out: Chunk[] = [];
  // Thinking-mode streams open with reasoning_content; plain ones with content.
  out.push(
    envelope([
      choice(
        thinking
          ? { role: 'assistant', content: null, reasoning_content: '' }
          : { role: 'assistant', content: '' },
      ),
    ]),
  );
  for (const p of pieces(reply.reasoning ?? '', textMax)) {
    out.push(envelope([choice({ content: null, reasoning_content: p })]));
  }
  for (const p of pieces(reply.text ?? '', textMax)) {
    out.push(envelope([choice(thinking ? { content: p, reasoning_content: null } : { content: p })]));
  }
  const calls = (reply.toolCalls ?? []).map((c, index) => ({
    index,
    id: c.id ?? who.nextToolCallId(),
    name: c.name,
    args: splitChars(argsText(c.arguments), argsMax),
  }));
  const argsChars = (reply.toolCalls ?? []).reduce((n, c) => n + Array.from(argsText(c.arguments)).length, 0);
  const first = (c: (typeof calls)[number]) =>
    envelope([
      choice({
        tool_calls: [
          { index: c.index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } },
        ],
      }),
    ]);
  const argPiece = (index: number, piece: string) =>
    envelope([choice({ tool_calls: [{ index, function: { arguments: piece } }] })]);
  if (chunking?.interleaveToolCalls) {
    for (const c of calls) out.push(first(c));
    const longest = Math.max(0, ...calls.map((c) => c.args.length));
    for (let i = 0; i < longest; i++)
      for (const c of calls) if (i < c.args.length) out.push(argPiece(c.index, c.args[i]!));
  } else {
    for (const c of calls) {
      out.push(first(c));
      for (const a of c.args) out.push(argPiece(c.index, a));
    }
  }
  const usage = usageObject(reply, argsChars, who.promptChars);
  out.push(
    envelope([choice({ content: '' }, finishOf(reply))], usagePlacement === 'finish' ? { usage } : {}),
  );
  if (usagePlacement === 'separate') out.push(envelope([], { usage }));
  return out;
}

/** A non-streaming chat.completion for the same reply. */
export function completionObject(reply: ScriptReply, who: ResponseIdentity): Chunk {
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? who.nextToolCallId(),
    type: 'function',
    function: { name: c.name, arguments: argsText(c.arguments) },
  }));
  const argsChars = (reply.toolCalls ?? []).reduce((n, c) => n + Array.from(argsText(c.arguments)).length, 0);
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? '' };
  if (reply.reasoning !== undefined) message.reasoning_content = reply.reasoning;
  if (toolCalls.length) message.tool_calls = toolCalls;
  return {
    id: who.id,
    object: 'chat.completion',
    created: who.created,
    model: who.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(reply) }],
    usage: usageObject(reply, argsChars, who.promptChars),
  };
}

/**
 * One SSE frame: a data line or a keep-alive comment. `content` marks a data frame that carries a piece of
 * what the model generates (text, reasoning, tool-call arguments): what a failure's `afterChunks` counts, the
 * same way in every format, whatever envelope events the format streams around the pieces.
 */
export type Frame = { kind: 'data'; text: string; content?: boolean } | { kind: 'comment'; text: string };

/** The keep-alive comment DeepSeek interleaves while a response is being produced. */
export const KEEP_ALIVE = ': keep-alive\n\n';

/** Serializes one data line. */
export function dataLine(json: unknown): string {
  return `data: ${JSON.stringify(json)}\n\n`;
}

/** Data chunks with keep-alive comments interleaved: one first, then one after every N data chunks. */
export function frames(chunks: Chunk[], chunking: ScriptChunking | undefined): Frame[] {
  const every = chunking?.keepAliveEvery ?? DEFAULT_KEEP_ALIVE_EVERY;
  const out: Frame[] = [];
  if (every > 0) out.push({ kind: 'comment', text: KEEP_ALIVE });
  chunks.forEach((c, i) => {
    out.push({ kind: 'data', text: dataLine(c), content: carriesContent(c) });
    if (every > 0 && (i + 1) % every === 0 && i + 1 < chunks.length)
      out.push({ kind: 'comment', text: KEEP_ALIVE });
  });
  return out;
}

/** Whether a chat chunk carries a non-empty piece of text, reasoning or tool-call arguments. */
function carriesContent(c: Chunk): boolean {
  const delta = (c.choices as Array<{ delta?: Record<string, unknown> }> | undefined)?.[0]?.delta;
  if (!delta) return false;
  const calls = (delta.tool_calls ?? []) as Array<{ function?: { arguments?: unknown } }>;
  return [delta.content, delta.reasoning_content, ...calls.map((t) => t.function?.arguments)].some(
    (v) => typeof v === 'string' && v !== '',
  );
}

/**
 * Frames up to (not including) the content frame number `n`: the first `n` pieces the model generates, with
 * every frame that opens or frames them (role chunk, message_start, content_block_start, keep-alives...).
 */
export function framesBefore(all: Frame[], n: number): Frame[] {
  const out: Frame[] = [];
  let seen = 0;
  for (const f of all) {
    if (f.kind === 'data' && f.content) {
      if (seen === n) break;
      seen++;
    }
    out.push(f);
  }
  return out;
}

/** DeepSeek-style error body for an HTTP status (defaults follow DeepSeek's documented error texts). */
export function errorBody(
  status: number,
  over: { message?: string | undefined; type?: string | undefined; code?: string | null | undefined } = {},
): unknown {
  const defaults: Record<number, [string, string, string | null]> = {
    400: ['Invalid Format: the request body is not valid.', 'invalid_request_error', 'invalid_request_error'],
    401: [
      'Authentication Fails, Your api key: ****-emu is invalid',
      'authentication_error',
      'invalid_request_error',
    ],
    402: ['Insufficient Balance', 'unknown_error', 'invalid_request_error'],
    404: ['Not Found', 'invalid_request_error', 'not_found'],
    422: ['Invalid Parameters', 'invalid_request_error', 'invalid_request_error'],
    429: ['Rate Limit Reached', 'rate_limit_error', 'rate_limit_exceeded'],
    500: ['Server Error', 'server_error', 'internal_error'],
    503: ['Server Overloaded', 'server_error', 'server_overloaded'],
  };
  const [message, type, code] = defaults[status] ?? [`Emulated error ${status}`, 'api_error', null];
  return errorEnvelope('openai-chat', {
    status,
    message: over.message ?? message,
    type: over.type ?? type,
    code: over.code === undefined ? code : over.code,
  });
}

/** One named SSE event (`event: NAME` + its data), as the Responses and Anthropic streams frame them. */
export function eventFrame(event: string, data: unknown, content = false): Frame {
  return { kind: 'data', text: `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`, content };
}

/** A tool call's arguments as the object APIs that take no string want (a string that is not JSON stays one). */
export function argsObject(args: string | Record<string, unknown>): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}
