import { type ChatMessage, LlmProviderError, type LlmRequest } from '@acp-snapshot/core';
// Maps a provider-neutral LlmRequest to an OpenAI-compatible chat.completions request body.

/** Heads the system-prompt addendum that carries compaction summaries. */
export const SUMMARY_HEADING = '## Summary of the earlier conversation';

/** Request-shaping defaults from the plugin's options, used where the request leaves a field unset. */
export interface BodyDefaults {
  model?: string | undefined;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  /** `true` / `false` become `{type: "enabled" | "disabled"}`; an object is sent as-is. */
  thinking?: boolean | Record<string, unknown> | undefined;
}

/** A chat.completions message as sent on the wire (DeepSeek's `reasoning_content` included). */
export type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      reasoning_content?: string;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * Summaries go into the system message (as an addendum under SUMMARY_HEADING), not into a user
 * message: some OpenAI-compatible providers reject two consecutive user messages, and a summary is
 * always followed by one.
 */
export function toWireMessages(system: string, messages: ChatMessage[]): WireMessage[] {
  const summaries = messages.filter((m) => m.role === 'summary').map((m) => m.content);
  const systemText = summaries.length
    ? [system, SUMMARY_HEADING, ...summaries].filter((s) => s !== '').join('\n\n')
    : system;
  const out: WireMessage[] = systemText ? [{ role: 'system', content: systemText }] : [];
  for (const m of messages) {
    switch (m.role) {
      case 'summary':
        break;
      case 'user':
        out.push({ role: 'user', content: m.content });
        break;
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
        break;
      case 'assistant': {
        const calls = m.toolCalls ?? [];
        if (!calls.length) {
          // Reasoning of a finished answer is not sent back (DeepSeek ignores or rejects it).
          out.push({ role: 'assistant', content: m.content });
          break;
        }
        out.push({
          role: 'assistant',
          content: m.content === '' ? null : m.content,
          // DeepSeek thinking mode requires the reasoning of a tool-call turn to come back with it.
          ...(m.reasoning !== undefined && { reasoning_content: m.reasoning }),
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        });
        break;
      }
    }
  }
  return out;
}

/** The streaming request body. Request fields win over option defaults; `params.extra` is merged in. */
export function toChatBody(request: LlmRequest, defaults: BodyDefaults): Record<string, unknown> {
  const model = request.model || defaults.model;
  if (!model) {
    throw new LlmProviderError(
      'openai-compatible: no model id: set llm.model in the agent config (or options.model of the plugin)',
      'bad_request',
    );
  }
  const temperature = request.params.temperature ?? defaults.temperature;
  const maxTokens = request.params.maxTokens ?? defaults.maxTokens;
  const thinking =
    defaults.thinking === undefined
      ? undefined
      : typeof defaults.thinking === 'boolean'
        ? { type: defaults.thinking ? 'enabled' : 'disabled' }
        : defaults.thinking;
  return {
    ...(thinking !== undefined && { thinking }),
    ...request.params.extra,
    model,
    messages: toWireMessages(request.system, request.messages),
    ...(request.tools.length > 0 && {
      tools: request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      })),
    }),
    ...(temperature !== undefined && { temperature }),
    ...(maxTokens !== undefined && { max_tokens: maxTokens }),
    stream: true,
    stream_options: { include_usage: true },
  };
}
