/**
 * The providers' official client libraries as callers of the model server, one per wire format, each
 * streaming one answer's text the way an agent built on it would (for tests that must see what an SDK
 * makes of an answer, a fault or an error). Keyless: a dummy key, the server's URL as the base URL.
 */

import type { WireFormat } from '@acp-snapshot/core';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';

export interface SdkCallOptions {
  /** Cancels the call (what a user's cancel does in an agent). */
  signal?: AbortSignal;
  /** Each text delta as it arrives. */
  onText?: (text: string) => void;
}

export interface SdkClient {
  /** Streams an answer to one user message; resolves with its text, or rejects as the SDK does. */
  stream(prompt: string, options?: SdkCallOptions): Promise<string>;
}

/** The SDK of `format` pointed at `url`, retrying failed requests `retries` times (the SDK's own policy). */
export function sdkClient(format: WireFormat, url: string, retries: number): SdkClient {
  const collect = async <T>(events: AsyncIterable<T>, text: (e: T) => string, options: SdkCallOptions) => {
    let all = '';
    for await (const e of events) {
      const t = text(e);
      if (!t) continue;
      all += t;
      options.onText?.(t);
    }
    return all;
  };
  switch (format) {
    case 'openai-chat': {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'dummy', maxRetries: retries });
      return {
        async stream(prompt, options = {}) {
          const s = await client.chat.completions.create(
            { model: 'gpt-x', stream: true, messages: [{ role: 'user', content: prompt }] },
            options.signal ? { signal: options.signal } : {},
          );
          return collect(s, (c) => c.choices[0]?.delta?.content ?? '', options);
        },
      };
    }
    case 'openai-responses': {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'dummy', maxRetries: retries });
      return {
        async stream(prompt, options = {}) {
          const s = await client.responses.create(
            { model: 'gpt-x', input: prompt, stream: true },
            options.signal ? { signal: options.signal } : {},
          );
          return collect(s, (e) => (e.type === 'response.output_text.delta' ? e.delta : ''), options);
        },
      };
    }
    case 'anthropic-messages': {
      const client = new Anthropic({ baseURL: url, apiKey: 'dummy', maxRetries: retries });
      return {
        async stream(prompt, options = {}) {
          const s = await client.messages.create(
            {
              model: 'claude-x',
              max_tokens: 1024,
              stream: true,
              messages: [{ role: 'user', content: prompt }],
            },
            options.signal ? { signal: options.signal } : {},
          );
          return collect(
            s,
            (e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : ''),
            options,
          );
        },
      };
    }
    case 'gemini': {
      const ai = new GoogleGenAI({
        apiKey: 'dummy',
        httpOptions: {
          baseUrl: url,
          // The SDK retries only when told to; no wait between tries, as a test wants.
          ...(retries > 0 ? { retryOptions: { attempts: retries + 1, initialDelay: 0, jitter: 0 } } : {}),
        },
      });
      return {
        async stream(prompt, options = {}) {
          const s = await ai.models.generateContentStream({
            model: 'gemini-x',
            contents: prompt,
            config: {
              // Automatic function calling reads the whole stream before it yields (tests see the deltas as they come).
              automaticFunctionCalling: { disable: true },
              ...(options.signal ? { abortSignal: options.signal } : {}),
            },
          });
          return collect(s, (c) => c.text ?? '', options);
        },
      };
    }
    default:
      throw new Error(`sdkClient: no SDK for ${format}`);
  }
}
