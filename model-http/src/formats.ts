/**
 * What model-http adds to the wire-format rules of @acp-snapshot/core: the error envelope of its own answers
 * (marked as ours), and a path with its credentials dropped. Which format a path speaks, whether a request asks
 * for a stream, the credential headers and each format's error envelope are core's.
 */
import { CREDENTIAL_QUERY, errorEnvelope, type WireFormat } from '@acp-snapshot/core';

/**
 * The JSON error body of model-http's own answers (a replay mismatch), carrying `message`, in the request's
 * format's envelope, so the agent's SDK raises an API error (shown to the user, ending the turn) instead of
 * reading a model answer.
 */
export function errorBody(format: WireFormat | undefined, status: number, message: string): unknown {
  switch (format) {
    case 'anthropic-messages':
      return errorEnvelope(format, { status, message, type: 'invalid_request_error' });
    case 'gemini':
      return errorEnvelope(format, {
        status,
        message,
        type: status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT',
      });
    default:
      return errorEnvelope(format, {
        status,
        message,
        type: 'invalid_request_error',
        code: 'acp_snapshot_model_http',
      });
  }
}

/** `path` (with query) without credential parameters: what is stored and fingerprinted. */
export function scrubPath(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  for (const name of [...params.keys()]) if (CREDENTIAL_QUERY.has(name.toLowerCase())) params.delete(name);
  const rest = params.toString();
  return rest ? `${path.slice(0, q)}?${rest}` : path.slice(0, q);
}
