// What an adapter of the emulator is: one wire format's shapes for a reply and for each injected failure. The
// adapters (chat.ts, responses.ts, anthropic.ts, gemini.ts) implement it; format.ts routes a request to one.
// The formats themselves (names, routes, credential headers, error envelopes) are @acp-snapshot/core's.
import type { WireFormat } from '@acp-snapshot/core';
import type { ScriptChunking, ScriptReply } from './script.js';
import type { RoleText } from './template.js';
import type { Frame, ResponseIdentity } from './wire.js';

/** The fields of an error a script (or the emulator itself) gives; each format fills in its defaults. */
export interface ErrorFields {
  message?: string | undefined;
  type?: string | undefined;
  code?: string | null | undefined;
}

/** One API's shapes for a reply and for each injected failure. */
export interface FormatAdapter {
  name: WireFormat;
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
