// The DeepSeek / OpenAI-compatible LLM plugin, on the `openai` SDK. Loaded by name (`deepseek`,
// `openai-compatible`) from the agent config; bundled on its own as agent/dist/plugins/openai-compatible.js.
import {
  LlmAbortError,
  type LlmCallContext,
  type LlmPlugin,
  type LlmPluginFactory,
  LlmProviderError,
  type LlmRequest,
  type StreamChunk,
} from '@acp-snapshot/session-log';
import OpenAI from 'openai';
import { z } from 'zod';
import { mapError } from './openai-errors.js';
import { toChatBody } from './openai-messages.js';
import { ChunkTranslator, type WireChunk } from './openai-stream.js';

/** The plugin's options block (`llm.options` in the agent config). */
export const OpenAiCompatibleOptions = z.strictObject({
  /** Base URL of the OpenAI-compatible API (the SDK appends /chat/completions). */
  baseUrl: z.url().default('https://api.deepseek.com'),
  /** Environment variable holding the API key. */
  apiKeyEnv: z.string().min(1).default('DEEPSEEK_API_KEY'),
  /** Retries of a failed request (429, 5xx, connection errors) before the error reaches the turn. */
  maxRetries: z.number().int().min(0).max(10).default(2),
  /** Time allowed until the response headers arrive, per attempt. */
  timeoutMs: z.number().int().positive().default(60_000),
  /** Fallbacks used only when the request leaves the field unset (the agent normally sets them). */
  model: z.string().min(1).optional(),
  temperature: z.number().optional(),
  maxTokens: z.number().int().positive().optional(),
  /** DeepSeek thinking mode: true/false -> `thinking: {type: enabled|disabled}`; an object is sent as-is. */
  thinking: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
});
/** Validated plugin options. */
export type OpenAiCompatibleOptions = z.infer<typeof OpenAiCompatibleOptions>;

/** The plugin name reported in logs. */
export const PLUGIN_NAME = 'openai-compatible';

/** Validates the options block; the error names each bad key under `llm.options`. */
export function parseOptions(raw: Record<string, unknown>): OpenAiCompatibleOptions {
  const r = OpenAiCompatibleOptions.safeParse(raw);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `config error: llm.options.${i.path.map(String).join('.') || '(block)'}: ${i.message}`);
  throw new Error(`${PLUGIN_NAME} plugin: invalid options\n${lines.join('\n')}`);
}

/** Rejects with LlmAbortError as soon as the signal fires, even while the SDK sleeps between retries. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new LlmAbortError());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Creates the plugin. A missing API key is reported once here and fails every call, naming the variable. */
export const createPlugin: LlmPluginFactory = ({ options, env, log }) => {
  const o = parseOptions(options);
  const apiKey = env[o.apiKeyEnv];
  const missingKey = `no API key: the environment variable ${o.apiKeyEnv} is not set (options.apiKeyEnv); export it, or put it in .env for a live run`;
  if (!apiKey) log(`${PLUGIN_NAME}: ${missingKey}`);
  // The SDK's parse-failure log carries the offending data line; keep it for the malformed_chunk message.
  let badData: string | undefined;
  const client = apiKey
    ? new OpenAI({
        apiKey,
        baseURL: o.baseUrl,
        maxRetries: o.maxRetries,
        timeout: o.timeoutMs,
        // Nothing from process.env: the agent passes the environment it wants used.
        organization: null,
        project: null,
        webhookSecret: null,
        logLevel: 'error',
        logger: {
          error: (message: string, ...rest: unknown[]) => {
            if (message.startsWith('Could not parse message into JSON')) badData = String(rest[0]);
            else if (!message.startsWith('From chunk')) log(`${PLUGIN_NAME}: ${message}`);
          },
          warn: (message: string) => log(`${PLUGIN_NAME}: ${message}`),
          info: () => {},
          debug: () => {},
        },
      })
    : undefined;

  async function* stream(request: LlmRequest, ctx: LlmCallContext): AsyncGenerator<StreamChunk> {
    if (!client) throw new LlmProviderError(`${PLUGIN_NAME}: ${missingKey}`, 'unauthorized');
    const { signal } = ctx;
    const body = toChatBody(request, o);
    const errCtx = { baseUrl: o.baseUrl, apiKeyEnv: o.apiKeyEnv, timeoutMs: o.timeoutMs };
    if (signal.aborted) throw new LlmAbortError();
    let sdkStream: AsyncIterable<unknown>;
    try {
      sdkStream = await raceAbort(
        client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsStreaming, { signal }),
        signal,
      );
    } catch (e) {
      throw mapError(e, signal, { ...errCtx, phase: 'request' });
    }
    const translator = new ChunkTranslator();
    badData = undefined;
    try {
      for await (const chunk of sdkStream) {
        for (const out of translator.push(chunk as WireChunk)) yield out;
      }
    } catch (e) {
      throw mapError(e, signal, { ...errCtx, phase: 'stream', badData });
    }
    // The SDK ends iteration quietly when its request is aborted.
    if (signal.aborted) throw new LlmAbortError();
    yield translator.finish();
  }

  const plugin: LlmPlugin = { name: PLUGIN_NAME, stream };
  return plugin;
};
