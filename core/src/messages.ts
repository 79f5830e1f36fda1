/**
 * The provider-neutral vocabulary of a model call: the messages the agent keeps and sends, the tools it
 * offers, the chunks a model streams back, and a request's per-part fingerprint. The LLM plugin interface
 * (llm.ts) speaks it, and the session log records it.
 */
import * as z from 'zod';

/** Token usage reported by the provider on the terminal chunk. */
export const Usage = z.strictObject({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  cachedTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof Usage>;

/** Provider-neutral finish reasons (OpenAI / DeepSeek vocabulary). */
export const FinishReason = z.enum([
  'stop',
  'length',
  'tool_calls',
  'content_filter',
  'insufficient_system_resource',
]);
export type FinishReason = z.infer<typeof FinishReason>;

/** One provider-neutral stream chunk: what an LLM plugin yields and what the log records. */
export const StreamChunk = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('reasoning'), text: z.string() }),
  z.strictObject({
    type: z.literal('tool_call_start'),
    index: z.number().int().nonnegative(),
    id: z.string(),
    name: z.string(),
  }),
  z.strictObject({
    type: z.literal('tool_call_args'),
    index: z.number().int().nonnegative(),
    delta: z.string(),
  }),
  z.strictObject({ type: z.literal('finish'), reason: FinishReason, usage: Usage.optional() }),
]);
export type StreamChunk = z.infer<typeof StreamChunk>;

/** A tool definition as sent to the model (JSON Schema parameters). */
export const ToolSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolSchema = z.infer<typeof ToolSchema>;

/** A tool call requested by the assistant, arguments as the raw JSON text the model produced. */
export const ToolCallRequest = z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() });
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;

/** A conversation message in the provider-neutral shape the agent keeps and sends. */
export const ChatMessage = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('user'), content: z.string() }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string(),
    reasoning: z.string().optional(),
    toolCalls: z.array(ToolCallRequest).optional(),
  }),
  z.strictObject({ role: z.literal('tool'), toolCallId: z.string(), content: z.string() }),
  /** A compaction summary standing in for the messages it replaced. */
  z.strictObject({ role: z.literal('summary'), content: z.string() }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

/** Per-part hashes of a model request, so a drift can be located. */
export const RequestFingerprint = z.strictObject({
  hash: z.string(),
  parts: z.strictObject({
    model: z.string(),
    system: z.string(),
    tools: z.string(),
    params: z.string(),
    messages: z.array(z.string()),
  }),
});
export type RequestFingerprint = z.infer<typeof RequestFingerprint>;
