// The wire formats the emulator speaks, one adapter each; the request's path picks the adapter. Every
// adapter renders the same script reply (text, reasoning, tool calls, finish, usage) in its API's shapes.
import { anthropicFormat } from './anthropic.js';
import { geminiFormat } from './gemini.js';
import { responsesFormat } from './responses.js';
import type { ScriptChunking, ScriptReply } from './script.js';
import { contentText, type RoleText, roleOf } from './template.js';
import {
  completionObject,
  dataLine,
  errorBody,
  type Frame,
  frames,
  type ResponseIdentity,
  streamChunks,
} from './wire.js';

export type FormatName = 'chat' | 'responses' | 'anthropic' | 'gemini';

/** The fields of an error a script (or the emulator itself) gives; each format fills in its defaults. */
export interface ErrorFields {
  message?: string | undefined;
  type?: string | undefined;
  code?: string | null | undefined;
}

/** One API's shapes for a reply and for each injected failure. */
export interface WireFormat {
  name: FormatName;
  /** Whether the request asks for a stream (a body field, or the path's method for Gemini). */
  streams(body: Record<string, unknown>, path: string, query: URLSearchParams): boolean;
  /** The model id to echo (the body's `model`, or the path's for Gemini). */
  model(body: Record<string, unknown>, path: string): string | undefined;
  /** The request's messages as vars see them. */
  messages(body: Record<string, unknown>): RoleText[];
  /** Characters of what the model reads (messages, instructions, tools), for the prompt-token estimate. */
  promptChars(body: Record<string, unknown>): number;
  /** Every frame of a streamed reply, in order, without the terminator. */
  streamFrames(reply: ScriptReply, chunking: ScriptChunking | undefined, who: ResponseIdentity): Frame[];
  /** What ends a complete stream (`data: [DONE]` for chat; the others end with their last event). */
  streamEnd: string;
  /** The JSON text of a non-streamed answer (Gemini's streamGenerateContent without `alt=sse`: an array). */
  complete(reply: ScriptReply, who: ResponseIdentity, path: string): string;
  /** The body of an HTTP error with this status. */
  errorBody(status: number, over: ErrorFields): unknown;
  /** The message of a `stream_error` whose script gives none. */
  defaultStreamErrorMessage: string;
  /** The frame of an error that arrives mid-stream, after `sent` data frames. */
  streamError(over: ErrorFields, sent: number): string;
  /** The default data of a `malformed` failure: a truncated event of this format. */
  truncated(who: ResponseIdentity): string;
  /** `data` framed as one of this format's stream events. */
  dataFrame(data: string): string;
}

const json = (v: unknown) => JSON.stringify(v ?? []);

/** OpenAI (DeepSeek) Chat Completions: the shapes in wire.ts, unchanged since the fixtures were recorded. */
const chatFormat: WireFormat = {
  name: 'chat',
  streams: (body) => body.stream === true,
  model: (body) => (typeof body.model === 'string' ? body.model : undefined),
  messages: (body) =>
    (Array.isArray(body.messages) ? body.messages : []).map((m: { role?: unknown; content?: unknown }) => ({
      role: roleOf(m?.role),
      text: contentText(m?.content),
    })),
  promptChars: (body) => json(body.messages).length + json(body.tools).length,
  streamFrames: (reply, chunking, who) => frames(streamChunks(reply, chunking, who), chunking),
  streamEnd: 'data: [DONE]\n\n',
  complete: (reply, who) => JSON.stringify(completionObject(reply, who)),
  errorBody: (status, over) => errorBody(status, over),
  defaultStreamErrorMessage: 'The service encountered an error while generating the response.',
  streamError: (over) => dataLine(errorBody(500, over)),
  truncated: (who) =>
    `{"id":"${who.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"trunc`,
  dataFrame: (data) => `data: ${data}\n\n`,
};

/** Routes, by path without the query. */
const ROUTES: [RegExp, WireFormat][] = [
  [/^(\/v1)?\/chat\/completions$/, chatFormat],
  [/^(\/v1)?\/responses$/, responsesFormat],
  [/^\/v1\/messages$/, anthropicFormat],
  [/^\/v1(beta)?\/models\/[^/:]+:(generateContent|streamGenerateContent)$/, geminiFormat],
];

/** What each format's route looks like, for the 404 message. */
export const ROUTE_LIST =
  'POST /chat/completions, /v1/chat/completions (OpenAI Chat), /responses, /v1/responses (OpenAI Responses), ' +
  '/v1/messages (Anthropic), /v1beta/models/MODEL:generateContent or :streamGenerateContent (Gemini)';

/** The format a POST to `path` speaks, if any. */
export function formatFor(path: string): WireFormat | undefined {
  return ROUTES.find(([re]) => re.test(path))?.[1];
}

/** The default format (for answers to requests that name none, like an unknown route). */
export const defaultFormat = chatFormat;
