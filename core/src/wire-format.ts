/**
 * The four model APIs (wire formats) the emulator serves and model-http records, defined once: their names,
 * the paths that speak them, whether a request asks for a stream, the headers and query parameters that carry a credential, and the JSON envelope
 * of an error in each. The emulator's adapters and model-http's proxy fill in their own contents (replies,
 * default error texts); the rules that say which format a request is in and how a key or an error travels
 * live here.
 */

/** A model API, named after the API rather than the vendor or the mode. */
export type WireFormat = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';

interface FormatPaths {
  /** The API's own routes, from the root of its base URL (a server that serves the API answers these). */
  route: RegExp;
  /** What tells a path anywhere behind a base URL speaks the format (a proxy sees prefixed paths too). */
  suffix: RegExp;
}

/** The paths of each format, in the order they are tried. */
const PATHS: ReadonlyArray<readonly [WireFormat, FormatPaths]> = [
  ['openai-chat', { route: /^(\/v1)?\/chat\/completions$/, suffix: /(^|\/)chat\/completions$/ }],
  ['openai-responses', { route: /^(\/v1)?\/responses$/, suffix: /(^|\/)responses$/ }],
  ['anthropic-messages', { route: /^\/v1\/messages$/, suffix: /(^|\/)v1\/messages$/ }],
  [
    'gemini',
    {
      route: /^\/v1(beta)?\/models\/[^/:]+:(generateContent|streamGenerateContent)$/,
      suffix: /\/models\/[^/]+:(generateContent|streamGenerateContent)$/,
    },
  ],
];

const withoutQuery = (path: string) => path.split('?')[0]!;

/** The format a request path speaks behind any base URL (with or without its query), if any. */
export function wireFormatOf(path: string): WireFormat | undefined {
  const p = withoutQuery(path);
  return PATHS.find(([, paths]) => paths.suffix.test(p))?.[0];
}

/** The format whose own route `path` (with or without its query) is, if any: what a server of the APIs serves. */
export function wireFormatRoute(path: string): WireFormat | undefined {
  const p = withoutQuery(path);
  return PATHS.find(([, paths]) => paths.route.test(p))?.[0];
}

/**
 * Whether a request asks for its answer as a stream of server-sent events: `stream: true` in the body (OpenAI
 * Chat and Responses, Anthropic, and a request in no known format), or Gemini's `:streamGenerateContent` with
 * `alt=sse` (without it Gemini answers one JSON array of the chunks, and `generateContent` one answer).
 */
export function streamsAnswer(format: WireFormat | undefined, path: string, body: unknown): boolean {
  if (format === 'gemini') {
    const [route = '', query = ''] = path.split('?');
    return route.endsWith(':streamGenerateContent') && new URLSearchParams(query).get('alt') === 'sse';
  }
  return !!body && typeof body === 'object' && (body as { stream?: unknown }).stream === true;
}

/** Request headers that carry a credential in any format: never stored, never fingerprinted, never logged. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'proxy-authorization',
  'cookie',
]);

/** Query parameters that carry a credential (Gemini accepts `?key=`). */
export const CREDENTIAL_QUERY: ReadonlySet<string> = new Set(['key', 'api_key', 'apikey']);

/** The header a format's clients send their key in, and its value for `key`. */
export function credentialHeader(format: WireFormat | undefined, key: string): [name: string, value: string] {
  switch (format) {
    case 'anthropic-messages':
      return ['x-api-key', key];
    case 'gemini':
      return ['x-goog-api-key', key];
    default:
      return ['authorization', `Bearer ${key}`];
  }
}

/** What an error says, whatever its format's envelope. */
export interface ErrorEnvelopeFields {
  /** The HTTP status (Gemini repeats it as `error.code`). */
  status: number;
  message: string;
  /** OpenAI's and Anthropic's `error.type`; Gemini's `error.status` (`UNAVAILABLE`...). */
  type: string;
  /** OpenAI's `error.code` (`null` when the provider sends none). */
  code?: string | null;
  /** Anthropic's top-level `request_id`, when the answer carries one. */
  requestId?: string;
}

/**
 * The JSON error body of a format: each format's own envelope, so the client's SDK raises its API error class
 * for it (OpenAI Chat and Responses share one; a request in no known format gets OpenAI's).
 */
export function errorEnvelope(format: WireFormat | undefined, e: ErrorEnvelopeFields): unknown {
  switch (format) {
    case 'anthropic-messages':
      return {
        type: 'error',
        error: { type: e.type, message: e.message },
        ...(e.requestId !== undefined && { request_id: e.requestId }),
      };
    case 'gemini':
      return { error: { code: e.status, message: e.message, status: e.type } };
    default:
      return { error: { message: e.message, type: e.type, param: null, code: e.code ?? null } };
  }
}
