/**
 * `@acp-snapshot/playwright/testing`: the harness internals this repository's own suite tests (the
 * proofs, the failure catalog's harness layer, the conformance runs). Not part of the published package
 * and not a stable API: a user's tests use the package's index.
 */
// What the conformance runs (e2e/conformance) use of the kit, @acp-snapshot/conformance.
export {
  type AgentTarget,
  ALL_CHECKS,
  loadProfile,
  parseProfile,
  profileTarget,
  runCheck,
  runSuite,
  V2_CHECKS,
} from '@acp-snapshot/conformance';
// What recording scrubs by (the failure catalog's harness layer checks its attachments with it).
export { machineSecrets, scrub as scrubSecrets } from '@acp-snapshot/model-http';
export { attachFailureArtifacts, driverFailureArtifacts } from '../compare/failure-artifacts.js';
export { recordedModelCalls } from '../compare/harvest.js';
export { replayFailures } from '../compare/replay-report.js';
export { readExpected } from '../compare/snapshot-store.js';
export { findingsText, replayVerdict } from '../compare/verdict.js';
export { DriverError, type DriverResult, type StdoutLine, type StepRunner } from '../driver/driver.js';
export { RecordingFailed, recordScenario, recordTargetFor } from '../modes/record.js';
export { refreshScenario } from '../modes/refresh.js';
export { runCorpusScenario } from '../modes/scenario-run.js';
export { pruneSidecars } from '../modes/sidecars.js';
export { normalizeJsonlText } from '../normalize/normalize.js';
export { processesInside } from '../process/orphans.js';
export { machineRoots, scenarioKey } from '../roots/roots.js';
export { RunDirs } from '../roots/run-dirs.js';
export { ALL_ROW_KINDS, checkFixtures } from '../rules/guards.js';
export {
  discoverScenarios,
  fixturesDir,
  REPO_ROOT,
  repoGuardOptions,
  type ScenarioPaths,
  scenarioPaths,
} from '../scenario/corpus.js';
export type { ScenarioInput } from '../scenario/input.js';
export {
  ourAgentBuilt,
  ourAgentReplayTarget,
  ourAgentTarget,
  sdkExampleTarget,
} from './conformance-targets.js';
export { OFFLINE_FIRST_NPM, packedProject, packedTemplate, TARBALL } from './packed-harness.js';
export { childRunnerEnv } from './runner-env.js';
export { SDK_EXAMPLE_AGENT } from './sdk-example.js';
export { expect, test } from './suite-test.js';
