// Anthropic Messages (`POST /v1/messages`): content blocks (thinking, text, tool_use) and the event stream
// message_start, content_block_start/delta/stop, message_delta, message_stop.

import { errorEnvelope } from '@acp-snapshot/core';
import type { ScriptChunking, ScriptReply } from './script.js';
import { type RoleText, roleOf } from './template.js';
import {
  argsCharsOf,
  argsObject,
  argsText,
  DEFAULT_ARGS_PIECE,
  DEFAULT_TEXT_PIECE,
  eventFrame,
  type Frame,
  finishOf,
  pieces,
  type ResponseIdentity,
  splitChars,
  usageFigures,
} from './wire.js';
import type { ErrorFields, FormatAdapter } from './wire-format.js';

const PING: Frame = { kind: 'comment', text: 'event: ping\ndata: {"type": "ping"}\n\n' };

const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
  insufficient_system_resource: 'end_turn',
};

/** Error `type` and message by status, as the API answers them. */
const ERRORS: Record<number, [string, string]> = {
  400: ['invalid_request_error', 'Invalid request.'],
  401: ['authentication_error', 'invalid x-api-key'],
  402: ['billing_error', 'Your credit balance is too low to access the Anthropic API.'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not found.'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  422: ['invalid_request_error', 'Invalid request.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit.'],
  500: ['api_error', 'Internal server error'],
  503: ['overloaded_error', 'Overloaded'],
  529: ['overloaded_error', 'Overloaded'],
};

type Block =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; args: string };

function blocks(reply: ScriptReply, who: ResponseIdentity): Block[] {
  const out: Block[] = [];
  if (reply.reasoning !== undefined)
    out.push({ type: 'thinking', thinking: reply.reasoning, signature: `emu-signature-${who.index}` });
  if (reply.text !== undefined || !reply.toolCalls?.length)
    out.push({ type: 'text', text: reply.text ?? '' });
  for (const c of reply.toolCalls ?? [])
    out.push({
      type: 'tool_use',
      id: c.id ?? who.nextToolCallId('toolu_emu_'),
      name: c.name,
      input: argsObject(c.arguments),
      args: argsText(c.arguments),
    });
  return out;
}

function usage(reply: ScriptReply, who: ResponseIdentity, outputTokens?: number) {
  const u = usageFigures(reply, argsCharsOf(reply), who.promptChars);
  return {
    input_tokens: Math.max(0, u.prompt - u.hit),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: u.hit,
    output_tokens: outputTokens ?? u.completion,
  };
}

function message(reply: ScriptReply, who: ResponseIdentity, content: unknown[], done: boolean) {
  return {
    id: `msg_emu_${who.index}`,
    type: 'message',
    role: 'assistant',
    model: who.model,
    content,
    stop_reason: done ? STOP_REASONS[finishOf(reply)] : null,
    stop_sequence: null,
    usage: usage(reply, who, done ? undefined : 1),
  };
}

/** A block as `content_block_start` opens it, and the deltas that fill it. */
function blockEvents(b: Block, textMax: number, argsMax: number): [object, object[]] {
  if (b.type === 'thinking')
    return [
      { type: 'thinking', thinking: '', signature: '' },
      [
        ...pieces(b.thinking, textMax).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: b.signature },
      ],
    ];
  if (b.type === 'text')
    return [
      { type: 'text', text: '' },
      pieces(b.text, textMax).map((text) => ({ type: 'text_delta', text })),
    ];
  return [
    { type: 'tool_use', id: b.id, name: b.name, input: {} },
    ['', ...splitChars(b.args, argsMax)].map((partial_json) => ({ type: 'input_json_delta', partial_json })),
  ];
}

/** A delta that carries a piece of text, thinking or tool input (not a signature, not the opening empty input). */
function isPiece(delta: object): boolean {
  const d = delta as { text?: unknown; thinking?: unknown; partial_json?: unknown };
  return [d.text, d.thinking, d.partial_json].some((v) => typeof v === 'string' && v !== '');
}

function streamFrames(
  reply: ScriptReply,
  chunking: ScriptChunking | undefined,
  who: ResponseIdentity,
): Frame[] {
  const textMax = chunking?.textPieceChars ?? DEFAULT_TEXT_PIECE;
  const argsMax = chunking?.argsPieceChars ?? DEFAULT_ARGS_PIECE;
  const out: Frame[] = [
    eventFrame('message_start', { type: 'message_start', message: message(reply, who, [], false) }),
  ];
  // The API pings once after message_start; keepAliveEvery: 0 leaves it out.
  if ((chunking?.keepAliveEvery ?? 1) > 0) out.push(PING);
  blocks(reply, who).forEach((b, index) => {
    const [start, deltas] = blockEvents(b, textMax, argsMax);
    out.push(eventFrame('content_block_start', { type: 'content_block_start', index, content_block: start }));
    for (const delta of deltas)
      out.push(
        eventFrame('content_block_delta', { type: 'content_block_delta', index, delta }, isPiece(delta)),
      );
    out.push(eventFrame('content_block_stop', { type: 'content_block_stop', index }));
  });
  out.push(
    eventFrame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: STOP_REASONS[finishOf(reply)], stop_sequence: null },
      usage: { output_tokens: usage(reply, who).output_tokens },
    }),
  );
  out.push(eventFrame('message_stop', { type: 'message_stop' }));
  return out;
}

function completeContent(b: Block): unknown {
  return b.type === 'tool_use' ? { type: 'tool_use', id: b.id, name: b.name, input: b.input } : b;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: { type?: unknown; text?: unknown }) => (p?.type === 'text' ? String(p.text) : ''))
    .join('');
}

/** system, then each message's text; every tool_result block is a `tool` message of its own. */
function requestMessages(body: Record<string, unknown>): RoleText[] {
  const out: RoleText[] = [];
  if (body.system !== undefined) out.push({ role: 'system', text: textOf(body.system) });
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    const { role, content } = (m ?? {}) as { role?: unknown; content?: unknown };
    out.push({ role: roleOf(role), text: textOf(content) });
    for (const b of Array.isArray(content) ? content : [])
      if (b?.type === 'tool_result') out.push({ role: 'tool', text: textOf(b.content) });
  }
  return out;
}

function errorObject(status: number, over: ErrorFields) {
  const [type, message] = ERRORS[status] ?? ['api_error', `Emulated error ${status}`];
  return errorEnvelope('anthropic-messages', {
    status,
    type: over.type ?? type,
    message: over.message ?? message,
  });
}

const json = (v: unknown) => JSON.stringify(v ?? []);

export const anthropicFormat: FormatAdapter = {
  name: 'anthropic-messages',
  model: (body) => (typeof body.model === 'string' ? body.model : undefined),
  messages: requestMessages,
  promptChars: (body) =>
    json(body.system ?? '').length + json(body.messages).length + json(body.tools).length,
  streamFrames,
  streamEnd: '',
  complete: (reply, who) =>
    JSON.stringify(message(reply, who, blocks(reply, who).map(completeContent), true)),
  errorBody: errorObject,
  defaultStreamErrorMessage: 'Overloaded',
  streamError: (over) => eventFrame('error', errorObject(529, over)).text,
  truncated: () => '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"trunc',
  dataFrame: (data) => `event: content_block_delta\ndata: ${data}\n\n`,
};
