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
} from '@acp-snapshot/core';
import OpenAI from 'openai';
import { mapError } from './openai-errors.js';
import { toChatBody } from './openai-messages.js';
import { ChunkTranslator, type WireChunk } from './openai-stream.js';

/** The plugin's options block (`llm.options` in the agent config). */
export interface OpenAiCompatibleOptions {
  /** Base URL of the OpenAI-compatible API (the SDK appends /chat/completions). Default: DeepSeek's. */
  baseUrl: string;
  /** Environment variable holding the API key. Default DEEPSEEK_API_KEY. */
  apiKeyEnv: string;
  /** Retries of a failed request (429, 5xx, connection errors) before the error reaches the turn. Default 2. */
  maxRetries: number;
  /** Time allowed until the response headers arrive, per attempt. Default 60000. */
  timeoutMs: number;
  /** Fallbacks used only when the request leaves the field unset (the agent normally sets them). */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  /** DeepSeek thinking mode: true/false -> `thinking: {type: enabled|disabled}`; an object is sent as-is. */
  thinking?: boolean | Record<string, unknown>;
}

/** The plugin name reported in logs. */
export const PLUGIN_NAME = 'openai-compatible';

const DEFAULTS = {
  baseUrl: 'https://api.deepseek.com',
  apiKeyEnv: 'DEEPSEEK_API_KEY',
  maxRetries: 2,
  timeoutMs: 60_000,
};

type Check = (v: unknown) => string | undefined;
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const nonEmpty: Check = (v) =>
  typeof v === 'string' && v !== '' ? undefined : 'expected a non-empty string';
// Validated by hand rather than with zod: keeping zod out of this bundle halves its load time.
const CHECKS: Record<keyof OpenAiCompatibleOptions, Check> = {
  baseUrl: (v) => {
    if (typeof v !== 'string') return 'expected a URL string';
    return URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)
      ? undefined
      : `expected an http(s) URL, got ${JSON.stringify(v)}`;
  },
  apiKeyEnv: nonEmpty,
  maxRetries: (v) => (isInt(v) && v >= 0 && v <= 10 ? undefined : 'expected an integer from 0 to 10'),
  timeoutMs: (v) => (isInt(v) && v > 0 ? undefined : 'expected a positive integer (milliseconds)'),
  model: nonEmpty,
  temperature: (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : 'expected a number'),
  maxTokens: (v) => (isInt(v) && v > 0 ? undefined : 'expected a positive integer'),
  thinking: (v) =>
    typeof v === 'boolean' || (typeof v === 'object' && v !== null && !Array.isArray(v))
      ? undefined
      : 'expected true, false or an object',
};

/** Validates the options block and applies defaults; the error names each bad key under `llm.options`. */
export function parseOptions(raw: Record<string, unknown>): OpenAiCompatibleOptions {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const check = CHECKS[key as keyof OpenAiCompatibleOptions];
    if (!check)
      problems.push(`llm.options.${key}: unknown option (known: ${Object.keys(CHECKS).join(', ')})`);
    else if (value !== undefined) {
      const problem = check(value);
      if (problem) problems.push(`llm.options.${key}: ${problem}`);
    }
  }
  if (problems.length)
    throw new Error(
      `${PLUGIN_NAME} plugin: invalid options\n${problems.map((p) => `config error: ${p}`).join('\n')}`,
    );
  const defined = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
  return { ...DEFAULTS, ...defined } as OpenAiCompatibleOptions;
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
  /** One client per call, so the parse-failure line the SDK logs belongs to this call's stream. */
  const newClient = (key: string, onBadData: (data: string) => void) =>
    new OpenAI({
      apiKey: key,
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
          // The SDK logs the data line it could not parse, then the raw chunk; the line goes in the error.
          if (message.startsWith('Could not parse message into JSON')) onBadData(String(rest[0]));
          else if (!message.startsWith('From chunk')) log(`${PLUGIN_NAME}: ${message}`);
        },
        warn: (message: string) => log(`${PLUGIN_NAME}: ${message}`),
        info: () => {},
        debug: () => {},
      },
    });

  async function* stream(request: LlmRequest, ctx: LlmCallContext): AsyncGenerator<StreamChunk> {
    if (!apiKey) throw new LlmProviderError(`${PLUGIN_NAME}: ${missingKey}`, 'unauthorized');
    const { signal } = ctx;
    let badData: string | undefined;
    const client = newClient(apiKey, (data) => {
      badData = data;
    });
    const body = toChatBody(request, o);
    const errCtx = { baseUrl: o.baseUrl, apiKeyEnv: o.apiKeyEnv, timeoutMs: o.timeoutMs };
    if (signal.aborted) throw new LlmAbortError();
    let sdkStream: AsyncIterable<unknown>;
    try {
      sdkStream = await raceAbort(
        client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsStreaming, {
          signal,
        }),
        signal,
      );
    } catch (e) {
      throw mapError(e, signal, { ...errCtx, phase: 'request' });
    }
    const translator = new ChunkTranslator();
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
