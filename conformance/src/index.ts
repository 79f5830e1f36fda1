/**
 * @acp-snapshot/conformance: the ACP conformance kit (v1, and v2 with `--protocol 2`) for any agent command over stdio (docs/conformance.md).
 * Its checks, the runner that runs them against a target, agent profiles as targets with the prompt-aware
 * model stand-in, and the command line the harness runs as `acp-snapshot conformance`. The agent's process
 * spawn alone is `@acp-snapshot/conformance/process`.
 */
export type { TurnKind } from './check.js';
export { ALL_CHECKS, V2_CHECKS } from './checks/index.js';
export { runConformanceCli } from './cli.js';
export { loadProfile, parseProfile, profileTarget } from './profile-target.js';
export { type AgentTarget, type PrepareInput, runCheck, runSuite } from './runner.js';
export { checkDef, SCHEMA_PATH } from './schema.js';
