// The wire formats the emulator speaks, one adapter each; the request's path picks the adapter. Every
// adapter renders the same script reply (text, reasoning, tool calls, finish, usage) in its API's shapes.
import { type WireFormat, wireFormatRoute } from '@acp-snapshot/core';
import { anthropicFormat } from './anthropic.js';
import { chatFormat } from './chat.js';
import { geminiFormat } from './gemini.js';
import { responsesFormat } from './responses.js';
import type { FormatAdapter } from './wire-format.js';

/** The adapter of each format; which format a route speaks is core's rule (`wireFormatRoute`). */
const ADAPTERS: Record<WireFormat, FormatAdapter> = {
  'openai-chat': chatFormat,
  'openai-responses': responsesFormat,
  'anthropic-messages': anthropicFormat,
  gemini: geminiFormat,
};

/** What each format's route looks like, for the 404 message. */
export const ROUTE_LIST =
  'POST /chat/completions, /v1/chat/completions (OpenAI Chat), /responses, /v1/responses (OpenAI Responses), ' +
  '/v1/messages (Anthropic), /v1beta/models/MODEL:generateContent or :streamGenerateContent (Gemini)';

/** The format a POST to `path` speaks, if any. */
export function formatFor(path: string): FormatAdapter | undefined {
  const format = wireFormatRoute(path);
  return format && ADAPTERS[format];
}

/** The default format (for answers to requests that name none, like an unknown route). */
export const defaultFormat = chatFormat;
