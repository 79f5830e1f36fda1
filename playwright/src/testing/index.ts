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
export * from '../compare/failure-artifacts.js';
export * from '../compare/harvest.js';
export * from '../compare/replay-report.js';
export * from '../compare/snapshot-store.js';
export * from '../compare/verdict.js';
export * from '../driver/driver.js';
export * from '../modes/fixture-write.js';
export * from '../modes/record.js';
export * from '../modes/record-gate.js';
export * from '../modes/refresh.js';
export * from '../modes/scenario-run.js';
export * from '../modes/sidecars.js';
export * from '../normalize/normalize.js';
export * from '../process/orphans.js';
export * from '../roots/roots.js';
export * from '../roots/run-dirs.js';
export * from '../rules/guards.js';
export * from '../scenario/corpus.js';
export * from '../scenario/input.js';
export * from './conformance-targets.js';
export * from './packed-harness.js';
export * from './runner-env.js';
export * from './sdk-example.js';
export * from './suite-test.js';
