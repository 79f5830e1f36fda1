import { LlmProviderError, REPLAY_ERROR_CODE } from '@acp-snapshot/core';

/**
 * Replay's serving failures. They are LlmProviderErrors with code 'replay' (and keep that class name,
 * which is how the agent recognises provider errors across bundles), so the agent ends the turn with
 * the message; `replayError` tells them apart.
 */
export class ReplayError extends LlmProviderError {
  constructor(
    readonly replayError: 'ReplayDriftError' | 'ReplayExhaustedError' | 'ReplayConcurrencyError',
    message: string,
  ) {
    super(`${replayError}: ${message}`, REPLAY_ERROR_CODE);
  }
}

/** The live request differs from the recorded one (or is made at another turn / step). */
export class ReplayDriftError extends ReplayError {
  constructor(message: string) {
    super('ReplayDriftError', message);
  }
}

/** The agent made more model calls than the script holds. */
export class ReplayExhaustedError extends ReplayError {
  constructor(message: string) {
    super('ReplayExhaustedError', message);
  }
}

/** A second model call started while one was still streaming. */
export class ReplayConcurrencyError extends ReplayError {
  constructor(message: string) {
    super('ReplayConcurrencyError', message);
  }
}
