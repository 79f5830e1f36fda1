// Helpers for tests that talk to the emulator over raw HTTP and look at the exact bytes.
import { createParser } from 'eventsource-parser';

/** What a raw request saw: status, headers, every byte of body that arrived, and how the body ended. */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Set when reading the body failed (a cut connection); the text holds what arrived before. */
  error?: string;
}

/** POSTs a JSON body and reads the whole response body, keeping the prefix if the connection is cut. */
export async function rawPost(
  url: string,
  body: unknown,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<RawResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(init.signal && { signal: init.signal }),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return { status: res.status, headers: res.headers, text };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return {
      status: res.status,
      headers: res.headers,
      text,
      error: `${(e as Error).message}${cause ? ` (${cause})` : ''}`,
    };
  }
}

/** SSE text -> its events: parsed data objects, the literal `[DONE]`, invalid data lines as `{raw}`, comments. */
export function sseEvents(
  text: string,
): ({ data: unknown } | { done: true } | { raw: string } | { comment: string })[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      if (block.startsWith(':')) return { comment: block.slice(1).trim() };
      const data = block.replace(/^data: /, '');
      if (data === '[DONE]') return { done: true as const };
      try {
        return { data: JSON.parse(data) as unknown };
      } catch {
        return { raw: data };
      }
    });
}

/** One tool-call delta as it appears on the wire. */
export interface ToolDeltaView {
  index: number;
  id?: string;
  type?: string;
  function: { name?: string; arguments: string };
}

/** The fields of a data chunk that tests look at (a mid-stream error chunk has only `error`). */
export interface ChunkView {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: {
    index: number;
    delta: {
      role?: string;
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: ToolDeltaView[];
    };
    logprobs: null;
    finish_reason: string | null;
  }[];
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
    prompt_cache_hit_tokens: number;
    prompt_cache_miss_tokens: number;
  };
  error?: { message: string; type: string; param: null; code: string | null };
}

/** Only the parsed data chunks of an SSE text. */
export function dataChunks(text: string): ChunkView[] {
  return sseEvents(text).flatMap((e) => ('data' in e ? [e.data as ChunkView] : []));
}

/** One SSE event as a spec-conforming parser reads it: its `event:` name (if any) and its data. */
export interface SseMessage {
  event: string | undefined;
  data: string;
}

/** SSE text -> its events (named or not, comments dropped), read by eventsource-parser. */
export function sseMessages(text: string): SseMessage[] {
  const out: SseMessage[] = [];
  const parser = createParser({ onEvent: (e) => out.push({ event: e.event, data: e.data }) });
  parser.feed(text);
  return out;
}

/** The JSON data of each SSE event, with its event name (Responses and Anthropic streams name theirs). */
export function sseJson<T = Record<string, unknown>>(text: string): { event: string | undefined; data: T }[] {
  return sseMessages(text).map((m) => ({ event: m.event, data: JSON.parse(m.data) as T }));
}
