import type { ChatMessage, LlmRequest, Usage } from '@acp-snapshot/core';
import { callModel } from './model-call.js';
import type { CompactionContext } from './turn-context.js';

/** Context size estimate: characters / 4 over the system prompt, tool schemas and messages. */
export function estimateTokens(system: string, tools: unknown, messages: ChatMessage[]): number {
  let chars = system.length + JSON.stringify(tools).length;
  for (const m of messages) {
    chars += m.content.length;
    if (m.role === 'assistant') {
      chars += m.reasoning?.length ?? 0;
      for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length;
    }
  }
  return Math.ceil(chars / 4);
}

/**
 * How many leading messages to replace: everything except the most recent `keep`, moved back so the
 * kept part never starts with a tool result (which must follow its assistant message).
 * 0 when there is nothing worth summarizing.
 */
export function compactionSplit(messages: ChatMessage[], keep: number): number {
  let split = messages.length - keep;
  while (split > 0 && messages[split]?.role === 'tool') split--;
  if (split <= 0) return 0;
  // A lone earlier summary is not worth summarizing again.
  if (split === 1 && messages[0]!.role === 'summary') return 0;
  return split;
}

const SUMMARY_SYSTEM =
  'You summarize a coding session so it can continue without the full transcript. Keep: the user goals, ' +
  'decisions, files read or changed (with paths), commands run and their outcomes, open problems and next ' +
  'steps. Be concise and factual; write plain text.';

/** Renders messages as one transcript text, so the summary call needs no tool-call message shapes. */
function transcript(messages: ChatMessage[]): string {
  return messages
    .map((m) => {
      if (m.role === 'user') return `## User\n${m.content}`;
      if (m.role === 'summary') return `## Summary of earlier conversation\n${m.content}`;
      if (m.role === 'tool') return `## Tool result (${m.toolCallId})\n${m.content}`;
      const calls = (m.toolCalls ?? [])
        .map((c) => `\n[tool call ${c.id}: ${c.name} ${c.arguments}]`)
        .join('');
      return `## Assistant\n${m.content}${calls}`;
    })
    .join('\n\n');
}

/**
 * Before a model step: when the estimated context passes `compaction.budgetTokens`, summarize the older
 * messages with one model call through the same plugin (purpose 'compaction', same turn and step
 * numbers as the step it precedes), persist `compaction/summary` (llmStreamCall: true) and a
 * compaction boundary. The summary's stream chunks are not persisted as assistant/chunk: replay rebuilds
 * them from rawOutput.
 */
export async function maybeCompact(
  session: CompactionContext,
  turn: number,
  step: number,
  signal: AbortSignal,
): Promise<void> {
  const { config, toolSchemas, log } = session.services;
  const { messages } = session.conversation;
  const estimate = estimateTokens(session.systemPrompt, toolSchemas, messages);
  if (estimate <= config.compaction.budgetTokens) return;
  const split = compactionSplit(messages, config.compaction.keepRecentMessages);
  if (split === 0) {
    log(`context estimate ${estimate} tokens is over the budget, but nothing older is left to summarize`);
    return;
  }
  const request: LlmRequest = {
    model: session.settings.model,
    system: SUMMARY_SYSTEM,
    messages: [
      {
        role: 'user',
        content: `Summarize this conversation so far:\n\n${transcript(messages.slice(0, split))}`,
      },
    ],
    tools: [],
    params: {
      maxTokens: config.compaction.maxSummaryTokens,
      ...(config.llm.params.extra ? { extra: config.llm.params.extra } : {}),
    },
    purpose: 'compaction',
  };
  let rawOutput = '';
  let usage: Usage | undefined;
  await callModel({ session, turn, step, signal }, request, 'the compaction summary stream', (chunk) => {
    if (chunk.type === 'text') rawOutput += chunk.text;
    if (chunk.type === 'finish') usage = chunk.usage;
  });
  await session.record({
    type: 'compaction/summary',
    turn,
    rawOutput,
    replacedMessages: split,
    ...(usage ? { usage } : {}),
    llmStreamCall: true,
  });
  await session.record({ type: 'boundary', kind: 'compaction', turn });
  log(
    `compacted ${split} messages of ${session.id} (estimate ${estimate} tokens > ${config.compaction.budgetTokens})`,
  );
}
