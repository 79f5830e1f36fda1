// Gemini (`POST /v1beta/models/MODEL:generateContent` and `:streamGenerateContent?alt=sse`): candidates with
// content parts (text, thought text, functionCall), finishReason and usageMetadata on the last chunk.

import { errorEnvelope } from '@acp-snapshot/core';
import type { ScriptChunking, ScriptReply } from './script.js';
import { type RoleText, roleOf } from './template.js';
import {
  argsCharsOf,
  argsObject,
  DEFAULT_TEXT_PIECE,
  type Frame,
  finishOf,
  pieces,
  type ResponseIdentity,
  usageFigures,
} from './wire.js';
import type { FormatAdapter } from './wire-format.js';

const METHOD = /:(generateContent|streamGenerateContent)$/;

const FINISH_REASONS: Record<string, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  insufficient_system_resource: 'OTHER',
};

/** Google's canonical status and message by HTTP status. */
const STATUSES: Record<number, [string, string]> = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
  401: ['UNAUTHENTICATED', 'API key not valid. Please pass a valid API key.'],
  403: ['PERMISSION_DENIED', 'The caller does not have permission'],
  404: ['NOT_FOUND', 'Requested entity was not found.'],
  429: ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
  500: ['INTERNAL', 'An internal error has occurred.'],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
  504: ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'],
};

type Part = { text: string; thought?: true } | { functionCall: { id?: string; name: string; args: unknown } };

function functionCalls(reply: ScriptReply): Part[] {
  return (reply.toolCalls ?? []).map((c) => ({
    functionCall: { ...(c.id !== undefined && { id: c.id }), name: c.name, args: argsObject(c.arguments) },
  }));
}

function usageMetadata(reply: ScriptReply, who: ResponseIdentity) {
  const u = usageFigures(reply, argsCharsOf(reply), who.promptChars);
  const thoughts = reply.reasoning !== undefined ? u.reasoning : 0;
  return {
    promptTokenCount: u.prompt,
    candidatesTokenCount: Math.max(0, u.completion - thoughts),
    totalTokenCount: u.prompt + u.completion,
    ...(u.hit > 0 && { cachedContentTokenCount: u.hit }),
    ...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
  };
}

function chunk(parts: Part[], who: ResponseIdentity, last?: { reply: ScriptReply }) {
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        ...(last && { finishReason: FINISH_REASONS[finishOf(last.reply)] }),
        index: 0,
      },
    ],
    ...(last && { usageMetadata: usageMetadata(last.reply, who) }),
    modelVersion: who.model,
    responseId: `emu-${who.index}`,
  };
}

/** One chunk per text / thought piece and per function call; the last one carries finish and usage. */
function chunks(reply: ScriptReply, chunking: ScriptChunking | undefined, who: ResponseIdentity) {
  const max = chunking?.textPieceChars ?? DEFAULT_TEXT_PIECE;
  const parts: Part[] = [
    ...pieces(reply.reasoning ?? '', max).map((text): Part => ({ text, thought: true })),
    ...pieces(reply.text ?? '', max).map((text): Part => ({ text })),
    ...functionCalls(reply),
  ];
  if (parts.length === 0) parts.push({ text: '' });
  return parts.map((p, i) => chunk([p], who, i === parts.length - 1 ? { reply } : undefined));
}

function hasPiece(c: ReturnType<typeof chunk>): boolean {
  return c.candidates[0]!.content.parts.some((p) => !('text' in p) || p.text !== '');
}

/** The whole answer in one candidate: the thought, the text, the calls. */
function whole(reply: ScriptReply, who: ResponseIdentity) {
  const parts: Part[] = [
    ...(reply.reasoning !== undefined ? [{ text: reply.reasoning, thought: true as const }] : []),
    ...(reply.text !== undefined || !reply.toolCalls?.length ? [{ text: reply.text ?? '' }] : []),
    ...functionCalls(reply),
  ];
  return chunk(parts, who, { reply });
}

const frame = (data: string, content = false): Frame => ({
  kind: 'data',
  text: `data: ${data}\r\n\r\n`,
  content,
});

/** The text of parts: a list of parts, one part, or (as the API also takes) a plain string. */
function partsText(parts: unknown): string {
  if (typeof parts === 'string') return parts;
  return (Array.isArray(parts) ? parts : [parts])
    .map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : ''))
    .join('');
}

/**
 * systemInstruction (or the REST spelling system_instruction; a Content, its parts, or a string), each
 * content's text; every functionResponse part is a `tool` message of its own.
 */
function requestMessages(body: Record<string, unknown>): RoleText[] {
  const out: RoleText[] = [];
  const sys = body.systemInstruction ?? body.system_instruction;
  if (sys !== undefined && sys !== null)
    out.push({
      role: 'system',
      text: partsText(typeof sys === 'object' && 'parts' in sys ? (sys as { parts: unknown }).parts : sys),
    });
  for (const c of Array.isArray(body.contents) ? body.contents : []) {
    const { role, parts } = (c ?? {}) as { role?: unknown; parts?: unknown };
    out.push({ role: roleOf(role), text: partsText(parts) });
    for (const p of Array.isArray(parts) ? parts : [])
      if (p?.functionResponse) out.push({ role: 'tool', text: JSON.stringify(p.functionResponse.response) });
  }
  return out;
}

function errorObject(status: number, over: { message?: string | undefined; type?: string | undefined }) {
  const [name, message] = STATUSES[status] ?? ['UNKNOWN', `Emulated error ${status}`];
  return errorEnvelope('gemini', { status, message: over.message ?? message, type: over.type ?? name });
}

const json = (v: unknown) => JSON.stringify(v ?? []);

export const geminiFormat: FormatAdapter = {
  name: 'gemini',
  model: (_body, path) => /\/models\/([^/:]+):/.exec(path)?.[1],
  messages: requestMessages,
  promptChars: (body) =>
    json(body.systemInstruction ?? '').length + json(body.contents).length + json(body.tools).length,
  // Every chunk holds one piece (a text or thought piece, or a whole call); an empty answer's chunk holds none.
  streamFrames: (reply, chunking, who) =>
    chunks(reply, chunking, who).map((c) => frame(JSON.stringify(c), hasPiece(c))),
  streamEnd: '',
  // streamGenerateContent without alt=sse answers a JSON array of the chunks.
  complete: (reply, who, path) =>
    METHOD.exec(path)?.[1] === 'streamGenerateContent'
      ? `[${chunks(reply, undefined, who)
          .map((c) => JSON.stringify(c))
          .join(',\r\n')}]`
      : JSON.stringify(whole(reply, who)),
  errorBody: errorObject,
  defaultStreamErrorMessage: 'An internal error has occurred.',
  streamError: (over) => frame(JSON.stringify(errorObject(500, over))).text,
  truncated: () => '{"candidates":[{"content":{"parts":[{"text":"trunc',
  dataFrame: (data) => frame(data).text,
};
