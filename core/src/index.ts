/**
 * @acp-snapshot/core: what the packages share that is not the session log (docs/decisions/0025-core-package.md).
 * Only the names another package imports are exported.
 */
export { CLIP_LENGTH, clipText, quoteValue } from './clip.js';
export {
  CONTRACT_ENV,
  formatReplayReport,
  parseReplayReport,
  REPLAY_ERROR_CODE,
  REPLAY_LINE_PREFIX,
  REPLAY_NOTE_PREFIX,
  type ReplayDrift,
  type ReplayReport,
  type SnapshotMode,
} from './contract.js';
export { cutText } from './cut.js';
export { MAX_JSON_DEPTH, nestsDeeperThan } from './depth.js';
export {
  firstDifference,
  firstDifferingChar,
  formatPath,
  jsonPointer,
  type PathSegment,
  textWindow,
  type ValueDifference,
  valueDifferences,
} from './differ.js';
export {
  canonicalJson,
  differingParts,
  fingerprintRequest,
  firstDifferingPart,
  shortHash,
} from './fingerprint.js';
export {
  acceptSnapshotsCommand,
  projectTestsCommand,
  readmeSection,
  recordCommand,
  refreshCommand,
  updateSnapshotsCommand,
} from './fix-commands.js';
export { formatIssuePath } from './issue-path.js';
export {
  isLlmAbortError,
  isLlmProviderError,
  LlmAbortError,
  type LlmCallContext,
  type LlmErrorCode,
  type LlmPlugin,
  type LlmPluginFactory,
  LlmProviderError,
  type LlmRequest,
} from './llm.js';
export { findLoneSurrogate, loneSurrogateMessage } from './lone-surrogates.js';
export {
  ChatMessage,
  FinishReason,
  RequestFingerprint,
  StreamChunk,
  ToolCallRequest,
  ToolSchema,
  Usage,
} from './messages.js';
export { placeholderName, placeholderPattern } from './placeholder.js';
export {
  dashedPath,
  hydrateRoots,
  hydrateText,
  parseRootsEnv,
  ROOT_NAMES,
  RootReplacer,
  type RootSpelling,
  replaceRoots,
  rootAliases,
  rootSpellings,
  type VolatileRoots,
} from './roots.js';
export { type SidecarSource, sidecarHash } from './sidecars.js';
export { clipAround, firstHunk, markedWords, unifiedDiff } from './text-diff.js';
export {
  decodeUtf8File,
  findInvalidUtf8,
  handWrittenFileText,
  Utf8Error,
  utf8ProblemMessage,
} from './utf8.js';
export {
  CREDENTIAL_HEADERS,
  CREDENTIAL_QUERY,
  credentialHeader,
  errorEnvelope,
  streamsAnswer,
  type WireFormat,
  wireFormatOf,
  wireFormatRoute,
} from './wire-format.js';
