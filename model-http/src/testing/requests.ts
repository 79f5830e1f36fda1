/** Realistic request bodies of the four wire formats, as the agents send them, for tests and the bench. */
import type { WireFormat } from '@acp-snapshot/core';
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

/**
 * An ~80 KB Chat Completions request shaped like qwen-code's first turn: a 26 KB system prompt, 17 tool
 * schemas, a reminder with the date, OS, cwd and a folder listing.
 */
export function largeChatRequest(cwd: string, date: string): { path: string; body: Record<string, unknown> } {
  const prose = (topic: string, n: number) =>
    Array.from(
      { length: n },
      (_, i) =>
        `${topic} ${i + 1}: read the surrounding code before changing it, follow the project's conventions, keep changes small and explain them briefly; prefer the existing helpers over new ones.`,
    ).join('\n');
  const system = [
    'You are an interactive CLI agent specializing in software engineering tasks.',
    prose('Rule', 150),
    `Never write outside ${cwd}; paths you pass to tools are absolute, such as ${cwd}/src/index.ts.`,
    prose('Guideline', 70),
  ].join('\n\n');
  const tools = Array.from({ length: 17 }, (_, i) => ({
    type: 'function',
    function: {
      name: `tool_${i}`,
      description: `Tool ${i}. ${prose('Usage note', 9)}`,
      parameters: {
        type: 'object',
        properties: {
          absolute_path: {
            type: 'string',
            description: `An absolute path inside the workspace, e.g. ${cwd}/README.md.`,
          },
          content: { type: 'string', description: 'The full content to write.' },
          offset: { type: 'number', description: 'The 0-based line to start from.' },
        },
        required: ['absolute_path'],
      },
    },
  }));
  const listing = Array.from({ length: 40 }, (_, i) => `  ${i % 3 ? 'src' : 'test'}/module-${i}.ts`).join(
    '\n',
  );
  const reminder = `This is the Qwen Code. We are setting up the context for our chat.\nToday's date is ${date}.\nMy operating system is: linux\nI'm currently working in the directory: ${cwd}\nShowing up to 200 items (files + folders).\n${cwd}/\n${listing}`;
  return {
    path: '/v1/chat/completions',
    body: {
      model: 'qwen3-coder-plus',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: reminder },
        { role: 'assistant', content: 'Got it. Thanks for the context!' },
        { role: 'user', content: 'Read README.md and summarize it.' },
      ],
      tools,
    },
  };
}
