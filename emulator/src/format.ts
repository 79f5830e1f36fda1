// The wire formats the emulator speaks, one adapter each; the request's path picks the adapter. Every
// adapter renders the same script reply (text, reasoning, tool calls, finish, usage) in its API's shapes.
import { anthropicFormat } from './anthropic.js';
import { chatFormat } from './chat.js';
import { geminiFormat } from './gemini.js';
import { responsesFormat } from './responses.js';
import type { WireFormat } from './wire-format.js';

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
