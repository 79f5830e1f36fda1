/**
 * What each provider sends when it fails, per wire format: the JSON error body of an HTTP error (as the
 * provider spells it, so the agent's SDK raises the same error class it raises for a real one), and a
 * stream frame that format's parser cannot read. The server's own errors (a replay mismatch) use
 * `errorBody` in formats.ts instead, marked as ours. The envelope of each format is core's (wire-format.ts).
 */
import { errorEnvelope, type WireFormat } from '@acp-snapshot/core';

/** OpenAI's `error.type` and `error.code` for a status (Chat Completions and Responses share them). */
function openaiKind(status: number): { type: string; code: string | null; message: string } {
  if (status === 401)
    return {
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      message: 'Incorrect API key provided. You can find your API key in your account settings.',
    };
  if (status === 403)
    return {
      type: 'invalid_request_error',
      code: 'unsupported_country_region_territory',
      message: 'Forbidden.',
    };
  if (status === 404)
    return { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist.' };
  if (status === 429)
    return {
      type: 'requests',
      code: 'rate_limit_exceeded',
      message: 'Rate limit reached for requests. Please try again in 1ms.',
    };
  if (status >= 500)
    return {
      type: 'server_error',
      code: null,
      message: 'The server had an error while processing your request. Sorry about that!',
    };
  return { type: 'invalid_request_error', code: null, message: 'Invalid request.' };
}

/** Anthropic's `error.type` for a status. */
function anthropicType(status: number): string {
  const types: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    402: 'billing_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    500: 'api_error',
    504: 'timeout_error',
    529: 'overloaded_error',
  };
  return types[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

const ANTHROPIC_MESSAGES: Record<string, string> = {
  authentication_error: 'invalid x-api-key',
  rate_limit_error: 'This request would exceed the rate limit for your organization. Please try again later.',
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
};

/** Google's canonical status name for an HTTP status, as Gemini puts it in `error.status`. */
function googleStatus(status: number): { status: string; message: string } {
  const names: Record<number, [string, string]> = {
    400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
    401: [
      'UNAUTHENTICATED',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    ],
    403: ['PERMISSION_DENIED', "Method doesn't allow unregistered callers. Please use an API key."],
    404: ['NOT_FOUND', 'models/gemini is not found for API version v1beta.'],
    409: ['ABORTED', 'The operation was aborted.'],
    429: ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
    499: ['CANCELLED', 'The operation was cancelled.'],
    500: ['INTERNAL', 'An internal error has occurred. Please retry or report in the troubleshooting guide.'],
    501: ['UNIMPLEMENTED', 'Method not implemented.'],
    503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
    504: ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'],
  };
  const [name, message] = names[status] ?? [
    status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION',
    'Request failed.',
  ];
  return { status: name, message };
}

export interface ProviderErrorOptions {
  /** The provider's error type (`error.type`; Gemini's `error.status`), instead of the one for the status. */
  type?: string;
  /** The error's message, instead of the provider's usual one for the status. */
  message?: string;
}

/** The JSON error body a provider of `format` answers `status` with. */
export function providerErrorBody(
  format: WireFormat | undefined,
  status: number,
  options: ProviderErrorOptions = {},
): unknown {
  switch (format) {
    case 'anthropic-messages': {
      const type = options.type ?? anthropicType(status);
      const message = options.message ?? ANTHROPIC_MESSAGES[type] ?? 'Request failed.';
      return errorEnvelope(format, { status, message, type, requestId: 'req_fault' });
    }
    case 'gemini': {
      const g = googleStatus(status);
      return errorEnvelope(format, {
        status,
        message: options.message ?? g.message,
        type: options.type ?? g.status,
      });
    }
    default: {
      const k = openaiKind(status);
      return errorEnvelope(format, {
        status,
        message: options.message ?? k.message,
        type: options.type ?? k.type,
        code: k.code,
      });
    }
  }
}

/**
 * One frame no client of `format` can parse: in a stream an SSE event whose data is cut-off JSON (under the
 * event name the format uses for text, so the parser tries it); as a whole answer a truncated JSON body.
 */
export function malformedFrame(format: WireFormat | undefined, stream: boolean): string {
  const broken = '{"broken": "the provider sent half a frame';
  if (!stream) return broken;
  switch (format) {
    case 'anthropic-messages':
      return `event: content_block_delta\ndata: ${broken}\n\n`;
    case 'openai-responses':
      return `event: response.output_text.delta\ndata: ${broken}\n\n`;
    case 'gemini':
      return `data: ${broken}\r\n\r\n`;
    default:
      return `data: ${broken}\n\n`;
  }
}
