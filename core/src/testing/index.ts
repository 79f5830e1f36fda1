/**
 * Test helpers every package's tests may use (`@acp-snapshot/core/testing`): the failure catalog, the hostile
 * inputs and parser property of the fuzz tests, and any-text arbitraries. Not part of the runtime package:
 * nothing under src/ outside this folder imports it.
 */
export {
  type FailureCase,
  failureCase,
  failureCasesFor,
  PROVIDER_FAILURES,
  untestedCases,
} from './failure-catalog.js';
export {
  applyByteMutation,
  applyMutation,
  assertHostileFiles,
  bigHostile,
  bigLineMutation,
  buildHostile,
  byteMutation,
  deepHostile,
  deepJsonText,
  expectParserOutcome,
  type HostileSpec,
  hugeHostile,
  invalidUtf8,
  MB,
  type Mutation,
  mutatedDoc,
  mutatedJsonText,
  mutationOf,
  nastyString,
  type Outcome,
  outcome,
  pathsOf,
  smallHostile,
} from './hostile.js';
export { anyText } from './texts.js';
