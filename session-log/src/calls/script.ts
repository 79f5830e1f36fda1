import type { ChatMessage, LlmErrorCode, RequestFingerprint, StreamChunk } from '@acp-snapshot/core';

/** Why a model call is made (mirrors LlmRequest['purpose']). */
export type CallPurpose = 'turn' | 'compaction';

/**
 * What a replay entry expects of the live call it serves. Derived entries carry the recorded
 * `llm/request`; override entries carry whatever the override file states (possibly nothing).
 */
export interface ExpectedCall {
  turn?: number;
  step?: number;
  purpose?: CallPurpose;
  /** The recorded fingerprint; a bare `{ hash }` only allows whole-request comparison. */
  fingerprint?: RequestFingerprint | { hash: string };
  /**
   * The conversation the recorded request carried, rebuilt from `message/committed` and
   * `compaction/summary` events (turn calls only): lets a drift report show recorded vs live text.
   */
  messages?: ChatMessage[];
  /** Where the call is in its source: "event 12 of session.jsonl" or "calls[2] of replay.override.json". */
  location?: string;
}

/** A streamed response served in full, ending with exactly one terminal finish chunk. */
export interface ChunksEntry {
  kind: 'chunks';
  chunks: StreamChunk[];
  request?: ExpectedCall;
  /** Recorded delay before each chunk (ms, uncapped), when the source had timestamps. */
  delaysMs?: number[];
}

/** A provider failure: the prefix chunks are streamed, then an LlmProviderError is raised. */
export interface ThrowEntry {
  kind: 'throw';
  chunks: StreamChunk[];
  message: string;
  code: LlmErrorCode;
  status?: number;
  request?: ExpectedCall;
}

/** A model that never answers (after optional prefix chunks) until the call's signal aborts. */
export interface HangEntry {
  kind: 'hang';
  chunks?: StreamChunk[];
  request?: ExpectedCall;
}

/** One model call of a replay script, served positionally. */
export type ReplayEntry = ChunksEntry | ThrowEntry | HangEntry;

/** Short human label of a call position: "turn 2 step 1" (+ purpose when it is not a turn step). */
export function callLabel(c: {
  turn?: number | undefined;
  step?: number | undefined;
  purpose?: CallPurpose | undefined;
}): string {
  const at =
    c.turn === undefined
      ? 'an unspecified turn'
      : `turn ${c.turn}${c.step === undefined ? '' : ` step ${c.step}`}`;
  return c.purpose === 'compaction' ? `${at} (compaction summary)` : at;
}
