export * from './appender.js';
export * from './builders.js';
// The model calls a log holds, as a replay script, and the replay.override.json format.
export {
  type DeriveOptions,
  deriveReplayScript,
  ReplayLogError,
  recordedRequests,
  summaryChunks,
} from './calls/derive.js';
export {
  loadOverride,
  OverrideCall,
  parseOverride,
  ReplayOverride,
  ReplayOverrideError,
} from './calls/override.js';
export {
  type CallPurpose,
  type ChunksEntry,
  callLabel,
  type ExpectedCall,
  type HangEntry,
  type ReplayEntry,
  type ThrowEntry,
} from './calls/script.js';
export * from './clip.js';
export * from './codec.js';
export * from './contract.js';
export * from './cut.js';
export * from './depth.js';
export * from './events.js';
export * from './fingerprint.js';
export * from './fix-commands.js';
export * from './llm.js';
export * from './lone-surrogates.js';
export * from './placeholder.js';
export * from './project.js';
export * from './reader.js';
export * from './roots.js';
export * from './rows.js';
export * from './text-diff.js';
export * from './utf8.js';
