import { contentText, roleOf } from './template.js';
import { completionObject, dataLine, errorBody, frames, streamChunks } from './wire.js';
import type { FormatAdapter } from './wire-format.js';

const json = (v: unknown) => JSON.stringify(v ?? []);

/** OpenAI (DeepSeek) Chat Completions: the shapes in wire.ts, unchanged since the fixtures were recorded. */
export const chatFormat: FormatAdapter = {
  name: 'openai-chat',
  model: (body) => (typeof body.model === 'string' ? body.model : undefined),
  messages: (body) =>
    (Array.isArray(body.messages) ? body.messages : []).map((m: { role?: unknown; content?: unknown }) => ({
      role: roleOf(m?.role),
      text: contentText(m?.content),
    })),
  promptChars: (body) => json(body.messages).length + json(body.tools).length,
  streamFrames: (reply, chunking, who) => frames(streamChunks(reply, chunking, who), chunking),
  streamEnd: 'data: [DONE]\n\n',
  complete: (reply, who) => JSON.stringify(completionObject(reply, who)),
  errorBody: (status, over) => errorBody(status, over),
  defaultStreamErrorMessage: 'The service encountered an error while generating the response.',
  streamError: (over) => dataLine(errorBody(500, over)),
  truncated: (who) =>
    `{"id":"${who.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"trunc`,
  dataFrame: (data) => `data: ${data}\n\n`,
};
