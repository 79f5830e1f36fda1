/** Realistic request bodies of the four wire formats, as the agents send them, for tests and the bench. */
import type { WireFormat } from '../formats.js';
import { dashedPath } from '../normalize.js';

export const FORMATS = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini',
] as const satisfies readonly WireFormat[];

export interface Turn {
  cwd: string;
  /** As the agent spells today's date in its prompt. */
  date: string;
  prompt: string;
  stream: boolean;
  /** Ids an agent derives from HOME or its session (claude's metadata.user_id, codex's prompt_cache_key). */
  sessionId?: string;
  /** Extra system-prompt text (to make bodies large). */
  bulk?: string;
}

/** The system prompt: date, cwd, claude's dashed memory path, the kind of thing the real agents send. */
export function systemPrompt(t: Turn): string {
  return [
    'You are a coding agent working in a terminal.',
    `Today's date is ${t.date}.`,
    `The workspace is ${t.cwd}; your notes live in ~/.claude/projects/${dashedPath(t.cwd)}/memory.`,
    t.bulk ?? '',
  ].join('\n');
}

/** Path and JSON body of one model call in `format`. */
export function requestFor(format: WireFormat, t: Turn): { path: string; body: Record<string, unknown> } {
  const system = systemPrompt(t);
  const session = t.sessionId ?? 'session-0000';
  switch (format) {
    case 'openai-responses':
      return {
        path: '/v1/responses',
        body: {
          model: 'gpt-x',
          stream: t.stream,
          instructions: system,
          input: [{ role: 'user', content: t.prompt }],
          prompt_cache_key: session,
        },
      };
    case 'anthropic-messages':
      return {
        path: '/v1/messages',
        body: {
          model: 'claude-x',
          max_tokens: 1024,
          stream: t.stream,
          system,
          messages: [{ role: 'user', content: t.prompt }],
          metadata: { user_id: `user_${session}` },
        },
      };
    case 'gemini':
      return {
        path: `/v1beta/models/gemini-x:${t.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        body: {
          contents: [{ role: 'user', parts: [{ text: t.prompt }] }],
          systemInstruction: { parts: [{ text: system }] },
        },
      };
    default:
      return {
        path: '/v1/chat/completions',
        body: {
          model: 'qwen-x',
          stream: t.stream,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: t.prompt },
          ],
        },
      };
  }
}

/** The answer's deltas: a path streamed in pieces (split inside the cwd), CJK and an emoji. */
export function answerDeltas(cwd: string): string[] {
  return ['I read ', cwd.slice(0, 11), `${cwd.slice(11)}/notes.txt`, ': 你好, 世界', ' 🎉 done.'];
}
