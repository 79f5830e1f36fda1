/**
 * The little the server must know per wire format: which format a path speaks (for the shape of an
 * error the agent cannot mistake for a model answer, and the header that carries a key), and
 * whether a request asked for a stream. Everything else (bodies, frames) is handled format-blind.
 */

export type WireFormat = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini' | 'unknown';

/** The wire format of a request path (with or without its query). */
export function formatOf(path: string): WireFormat {
  const p = path.split('?')[0]!;
  if (/(^|\/)chat\/completions$/.test(p)) return 'openai-chat';
  if (/(^|\/)responses$/.test(p)) return 'openai-responses';
  if (/(^|\/)v1\/messages$/.test(p)) return 'anthropic-messages';
  if (/\/models\/[^/]+:(generateContent|streamGenerateContent)$/.test(p)) return 'gemini';
  return 'unknown';
}

/** Whether the request asked for a streamed answer: `stream: true` in the body, or Gemini's streaming action. */
export function isStreamRequest(path: string, body: unknown): boolean {
  if (/:streamGenerateContent(\?|$)/.test(path)) return true;
  return !!body && typeof body === 'object' && (body as { stream?: unknown }).stream === true;
}

/**
 * The JSON error body of a format, carrying `message`. Each is the format's own error envelope, so the
 * agent's SDK raises an API error (shown to the user, ending the turn) instead of reading a model answer.
 */
export function errorBody(format: WireFormat, status: number, message: string): unknown {
  switch (format) {
    case 'anthropic-messages':
      return { type: 'error', error: { type: 'invalid_request_error', message } };
    case 'gemini':
      return { error: { code: status, message, status: status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT' } };
    default:
      // OpenAI Chat Completions and Responses share one envelope; unknown paths get it too.
      return {
        error: { message, type: 'invalid_request_error', param: null, code: 'acp_snapshot_model_http' },
      };
  }
}

/** Request headers that carry a credential, in any of the four formats (never stored, never fingerprinted). */
export const AUTH_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'proxy-authorization',
  'cookie',
]);

/** Query parameters that carry a credential (Gemini accepts `?key=`). */
export const AUTH_QUERY: ReadonlySet<string> = new Set(['key', 'api_key', 'apikey']);

/** The header a format's upstream expects a key in, and its value. */
export function authHeader(format: WireFormat, key: string): [name: string, value: string] {
  switch (format) {
    case 'anthropic-messages':
      return ['x-api-key', key];
    case 'gemini':
      return ['x-goog-api-key', key];
    default:
      return ['authorization', `Bearer ${key}`];
  }
}

/** `path` (with query) without credential parameters: what is stored and fingerprinted. */
export function scrubPath(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  for (const name of [...params.keys()]) if (AUTH_QUERY.has(name.toLowerCase())) params.delete(name);
  const rest = params.toString();
  return rest ? `${path.slice(0, q)}?${rest}` : path.slice(0, q);
}
