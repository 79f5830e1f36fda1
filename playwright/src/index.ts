/**
 * @acp-snapshot/playwright: snapshot tests for ACP agents on Playwright Test.
 *
 *   test('hello', async ({ acp }) => {
 *     await acp.initialize();
 *     await acp.newSession();
 *     expect((await acp.prompt('Say hello')).stopReason).toBe('end_turn');
 *     await acp.close();
 *     await expect(acp).toMatchAcpSnapshot();
 *   });
 */
import { test as fixtures } from './fixtures.js';
import { expect } from './matchers.js';

export const test = fixtures;
/** Built-in profiles of ACP agents on npm: `agents.qwenCode()`, `agents.claudeAgentAcp()`... */
export * as agents from './agents/index.js';
export {
  type AcpConfigOptions,
  COVERAGE_PROJECT,
  type CoverageOptions,
  defineAcpConfig,
  type ScenarioProjectsOptions,
  scenarioProjects,
} from './config.js';
export {
  AcpClient,
  AcpRequestError,
  type KilledTurn,
  type PermissionAnswer,
  type PromptOptions,
  type PromptResult,
} from './driver/acp-client.js';
export type { AcpFixtures, AcpOptions, AcpWorkerFixtures, ModelSource, ResolvedAgent } from './fixtures.js';
export { acpSnapshotTexts } from './matchers.js';
export type { McpCrash, McpTestServers } from './mcp/mcp-servers.js';
export type { McpAnswer, McpTestServerSpec, McpTestTool } from './mcp/mcp-spec.js';
export {
  type HttpModel,
  type HttpModelSource,
  type ModelFault,
  RECORD_MODE_ENV,
  RECORD_MODES,
  type RecordMode,
} from './model/http-model.js';
export type { AgentProfile, NormalizeRules } from './profile.js';
export type { TestRoots } from './roots/roots.js';
export type { TurnPoint } from './scenario/input.js';
export { GUARDS_TAG, type ScenarioSuiteOptions, scenarioSuite } from './suite/scenario-suite.js';
export {
  type DriftTestOptions,
  driftTest,
  STARTER_TESTS,
  type StarterSuiteOptions,
  type StarterTest,
  starterSuite,
} from './suite/starter-suite.js';
export type { SuiteMode, SuiteOptions } from './suite/suite-test.js';
export { expect };
