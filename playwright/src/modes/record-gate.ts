/**
 * Who may record and against what: a key or a base URL must be given, and CI records only against this
 * machine (a loopback server or the bundled emulator), never a real model.
 */

/** The model endpoint a recording uses. */
export type RecordTarget =
  | { kind: 'deepseek'; apiKey: string }
  | { kind: 'server'; baseUrl: string; apiKey: string }
  | { kind: 'emulator'; apiKey: string };

/** Recording is not allowed or not possible; the message says what to set. */
export class RecordGateError extends Error {
  override name = 'RecordGateError';
}

/** The key passed to a local OpenAI-compatible server that needs none (never a secret). */
export const LOCAL_PLACEHOLDER_KEY = 'local-no-key';

/** Whether a base URL points at this machine. */
export function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * Decides what a recording talks to, from `DEEPSEEK_API_KEY` and `ACP_SNAPSHOT_BASE_URL`
 * (`emulator` = the bundled model emulator with `scripts/emulator-scripts/NAME.json`).
 */
export function recordTarget(env: NodeJS.ProcessEnv): RecordTarget {
  const baseUrl = env.ACP_SNAPSHOT_BASE_URL?.trim();
  const key = env.DEEPSEEK_API_KEY?.trim();
  if (!baseUrl && !key) {
    throw new RecordGateError(
      'record mode needs a model. Set DEEPSEEK_API_KEY=... (DeepSeek), or ACP_SNAPSHOT_BASE_URL=http://127.0.0.1:PORT/v1 ' +
        '(any OpenAI-compatible server: vLLM, Ollama, LM Studio), or ACP_SNAPSHOT_BASE_URL=emulator ' +
        '(the bundled emulator, scripted by scripts/emulator-scripts/NAME.json).',
    );
  }
  const local = baseUrl === 'emulator' || (baseUrl !== undefined && baseUrl !== '' && isLoopback(baseUrl));
  if (env.CI && !local) {
    throw new RecordGateError(
      `record mode is refused when CI is set: it would call a real model${baseUrl ? ` at ${baseUrl}` : ''}. ` +
        'Record on a developer machine, or point ACP_SNAPSHOT_BASE_URL at a loopback server (or "emulator").',
    );
  }
  if (baseUrl === 'emulator') return { kind: 'emulator', apiKey: LOCAL_PLACEHOLDER_KEY };
  if (baseUrl) {
    if (!/^https?:\/\//.test(baseUrl)) {
      throw new RecordGateError(
        `ACP_SNAPSHOT_BASE_URL must be an http(s) URL or "emulator", got ${JSON.stringify(baseUrl)}`,
      );
    }
    return { kind: 'server', baseUrl, apiKey: key || LOCAL_PLACEHOLDER_KEY };
  }
  return { kind: 'deepseek', apiKey: key! };
}
