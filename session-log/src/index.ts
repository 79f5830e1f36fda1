/**
 * @acp-snapshot/session-log: the session log format (events, rows, codec, reader, appender, projection) and
 * the model calls a log holds as a replay script. Only the names another package imports are exported;
 * what every package shares besides the log is in @acp-snapshot/core.
 */
export { type LogAppender, openLogAppender, writeLogFileAtomic } from './appender.js';
export {
  buildChunk,
  buildHeader,
  finishChunk,
  llmRequest,
  makeRecords,
  messageCommitted,
  textChunk,
  toolCall,
  toolCallArgs,
  toolCallStart,
  toolResult,
  turnEnd,
  turnStart,
  userMessage,
} from './builders.js';
// The model calls a log holds, as a replay script, and the replay.override.json format.
export { deriveReplayScript, ReplayLogError, recordedRequests, summaryChunks } from './calls/derive.js';
export { loadOverride, parseOverride, ReplayOverrideError } from './calls/override.js';
export { callLabel, type ExpectedCall, type ReplayEntry } from './calls/script.js';
export { LogFormatError, parseLogText, serializeLog } from './codec.js';
export {
  type BodyEvent,
  type EventOf,
  LOG_FORMAT,
  LOG_FORMAT_VERSION,
  type LogRecord,
  SessionEvent,
  SessionHeader,
  TurnEndKind,
} from './events.js';
export { projectLog, replaceLogRoots, resolveSystemPrompt, resolveTools } from './project.js';
export { readLogFile, streamLogRecordBatches, streamLogRecords } from './reader.js';
export { rowKindOf, unpackChunk } from './rows.js';
