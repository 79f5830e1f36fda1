/**
 * The canonical order of an exchange log (docs/decisions/0014-canonical-exchange-order.md): the same
 * exchanges give the same lines in the same order, whatever order concurrent requests arrived in (a
 * background title call beside the turn). Exchanges are grouped by conversation (the request without its
 * messages), a conversation's calls in the order its message list grew; conversations, and calls that
 * tie, by their request's fingerprint.
 * Only exchanges with the very same request keep their given order: replay serves those in log order.
 */
import { fingerprint, type JsonValue, type NormalizedRequest } from './normalize.js';

/** Where each wire format keeps the conversation: Chat Completions and Messages, Responses, Gemini. */
export const CONVERSATION_KEYS = ['messages', 'input', 'contents'] as const;

interface SortKey {
  /**
   * The request without its conversation: the same for every call of one conversation (model, system
   * prompt, tools), whatever an agent marks on its messages from call to call (claude's cache_control).
   */
  conversation: string;
  /** How far the conversation had grown: later calls of a conversation carry more messages. */
  length: number;
  /** The whole request. */
  request: string;
}

function sortKey(request: NormalizedRequest): SortKey {
  const body = request.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const name = CONVERSATION_KEYS.find((k) => Array.isArray(body[k]));
    if (name) {
      const messages = body[name] as JsonValue[];
      const settings: { [k: string]: JsonValue } = { ...body, [name]: [] };
      return {
        conversation: fingerprint({ ...request, body: settings }),
        length: messages.length,
        request: fingerprint(request),
      };
    }
  }
  const whole = fingerprint(request);
  return { conversation: whole, length: 0, request: whole };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The exchanges in canonical order (a new array; the exchanges themselves are not copied). */
export function canonicalOrder<T extends { request: NormalizedRequest }>(exchanges: readonly T[]): T[] {
  const keyed = exchanges.map((ex, given) => ({ ex, given, key: sortKey(ex.request) }));
  keyed.sort(
    (a, b) =>
      compare(a.key.conversation, b.key.conversation) ||
      a.key.length - b.key.length ||
      compare(a.key.request, b.key.request) ||
      a.given - b.given,
  );
  return keyed.map((k) => k.ex);
}
