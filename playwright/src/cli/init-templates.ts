/**
 * What `acp-snapshot init` writes: the built-in agents it knows (by the names of the example projects), and
 * the text of the config and the starter spec, the same shape as the examples' (a replay project and its
 * key-gated `:record` twin; no model, a plain answer, a tool call with a permission and the workspace).
 */

import type { BuiltinProfile } from '../agents/builtin.js';
import * as agents from '../agents/index.js';

/** A built-in agent as `init --agent NAME` writes it. */
export interface InitAgent {
  /** The profile function (`agents.qwenCode`): its definition names the package, bin and proven versions. */
  profile: BuiltinProfile;
  /** The Playwright project's name (its recording is `NAME:record`). */
  project: string;
  /** The variable that holds the provider's key when recording (the wire format the agent speaks). */
  keyEnv: string;
  /** The agent's wire format, in words (comments and messages). */
  wire: string;
  /**
   * Updates the agent sends at a time that varies after a turn: a helper the prompting tests await before
   * they close, so the snapshot never depends on whether they came in time (as the examples do).
   */
  settle?: { helper: string; call: string };
  /**
   * Files already in the tool test's workspace (under tests/seed/): an agent that asks only before it
   * overwrites a file gets one to overwrite.
   */
  seed?: Record<string, string>;
}

const QWEN_SETTLE = `/** qwen lists its commands at a time that varies after a session's first prompt: wait for them before closing. */
async function settled(acp: AcpClient): Promise<void> {
  await expect
    .poll(() => acp.stdout.some((l) => l.text.includes('"sessionUpdate":"available_commands_update"')), {
      timeout: 30_000,
    })
    .toBe(true);
}
`;

const CLAUDE_SETTLE = `/**
 * After a session's first prompt claude sends its commands twice and the session's title (from a model call
 * beside the turn), each at a time that varies: wait for all three before closing.
 */
async function settled(acp: AcpClient): Promise<void> {
  const count = (kind: string) =>
    acp.stdout.filter((l) => l.text.includes(\`"sessionUpdate":"\${kind}"\`)).length;
  await expect
    .poll(() => [count('available_commands_update'), count('session_info_update')], { timeout: 30_000 })
    .toEqual([2, 1]);
}
`;

/** The built-in agents, by the name `init --agent` takes (the example project's directory name). */
export const INIT_AGENTS: Record<string, InitAgent> = {
  'claude-agent-acp': {
    profile: agents.claudeAgentAcp,
    project: 'claude',
    keyEnv: 'ANTHROPIC_API_KEY',
    wire: 'Anthropic Messages',
    settle: { helper: CLAUDE_SETTLE, call: 'settled(acp)' },
  },
  cline: {
    profile: agents.cline,
    project: 'cline',
    keyEnv: 'OPENAI_API_KEY',
    wire: 'OpenAI Chat Completions',
  },
  'codex-acp': {
    profile: agents.codexAcp,
    project: 'codex',
    keyEnv: 'OPENAI_API_KEY',
    wire: 'OpenAI Responses',
  },
  'copilot-cli': {
    profile: agents.copilotCli,
    project: 'copilot',
    keyEnv: 'OPENAI_API_KEY',
    wire: 'OpenAI Chat Completions',
  },
  'gemini-cli': {
    profile: agents.geminiCli,
    project: 'gemini',
    keyEnv: 'GEMINI_API_KEY',
    wire: 'Gemini generateContent',
    // The list exists already: the starter test shows gemini's overwrite as a diff (a new file is asked for too).
    seed: { 'notes.txt': 'bread 🍞\n' },
  },
  opencode: {
    profile: agents.opencode,
    project: 'opencode',
    keyEnv: 'OPENAI_API_KEY',
    wire: 'OpenAI Chat Completions',
  },
  'qwen-code': {
    profile: agents.qwenCode,
    project: 'qwen',
    keyEnv: 'OPENAI_API_KEY',
    wire: 'OpenAI Chat Completions',
    settle: { helper: QWEN_SETTLE, call: 'settled(acp)' },
  },
};

/** The project name and key variable of an agent given by its command (`init -- COMMAND...`). */
export const OTHER_AGENT = { project: 'agent', keyEnv: 'OPENAI_API_KEY' };

/** What the config's agent is: a built-in profile by name, or a command line. */
export type InitTarget = { builtin: string } | { command: string[] };

const RECORD_COMMENT = (keyEnv: string) =>
  `  // Recording (\`npm run record\`): the model's base URL and key from the environment, never stored.\n` +
  `  record: { upstream: { baseUrlEnv: 'MODEL_UPSTREAM_URL', apiKeyEnv: '${keyEnv}' } },\n`;

/** playwright.config.ts. */
export function configText(target: InitTarget): string {
  if ('builtin' in target) {
    const a = INIT_AGENTS[target.builtin]!;
    return `// ${target.builtin} over ACP (written by \`acp-snapshot init\`): each test's model calls (${a.wire}) are
// recorded once by the \`${a.project}:record\` project against your model, and replayed keylessly from
// tests/__acp__/ by the default \`${a.project}\` project.
import { agents, defineAcpConfig } from '@acp-snapshot/playwright';

export default defineAcpConfig({
  // The built-in profile: the agent from node_modules/.bin, pointed at the harness's model server, quiet.
  agents: { ${a.project}: agents.${a.profile.agent.name}() },
  model: { kind: 'http' },
${RECORD_COMMENT(a.keyEnv)}  // Agents load large bundles at start: seconds on a busy machine.
  playwright: { timeout: 90_000 },
});
`;
  }
  return `// An ACP agent over stdio (written by \`acp-snapshot init\`): each test's model calls are recorded once by
// the \`${OTHER_AGENT.project}:record\` project against your model, and replayed keylessly from tests/__acp__/ by
// the default \`${OTHER_AGENT.project}\` project.
import { defineAcpConfig } from '@acp-snapshot/playwright';

export default defineAcpConfig({
  agents: {
    ${OTHER_AGENT.project}: {
      // Relative paths start at this directory.
      command: [${target.command.map((a) => JSON.stringify(a)).join(', ')}],
      // Point the agent's model at the harness's model server: {{modelBaseUrl}} in the variables (or HOME
      // files) the agent reads; change these to the ones your agent uses. The key is a dummy.
      env: { OPENAI_BASE_URL: '{{modelBaseUrl}}', OPENAI_API_KEY: 'sk-replay-dummy' },
    },
  },
  model: { kind: 'http' },
${RECORD_COMMENT(OTHER_AGENT.keyEnv)}  playwright: { timeout: 90_000 },
});
`;
}

/** Its workspace seed, in the spec: run from the project's directory (as npm scripts are). */
const SEED_USE = `  // The workspace starts with tests/seed/ (relative to the project, where npm runs the tests).
  test.use({ workspaceSeed: 'tests/seed' });
`;

const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');

const TOOL_TEST_TEXT = `test('a tool call with a permission request', async ({ acp, roots }) => {
  await acp.initialize();
  await acp.newSession();
  const asked: string[] = [];
  acp.answerPermissions((request) => {
    asked.push(request.toolCall.title ?? '');
    const allow = request.options.find((o) => o.kind === 'allow_once');
    return allow ? { outcome: 'selected', optionId: allow.optionId } : { outcome: 'cancelled' };
  });
  const turn = await acp.prompt('Create notes.txt with my shopping list: milk and eggs.');
  expect(turn.stopReason).toBe('end_turn');
  // The agent asked before it wrote, and wrote the list in the test's cwd.
  expect(asked.length).toBeGreaterThan(0);
  expect(readFileSync(join(roots.cwd, 'notes.txt'), 'utf8')).toContain('milk');
%WAIT%  await acp.close();
  // The file the tool wrote is in the workspace snapshot.
  await expect(acp).toMatchAcpSnapshot();
});
`;

/** The seed files init writes, by path relative to the project. */
export function seedFiles(target: InitTarget): Record<string, string> {
  const seed = 'builtin' in target ? INIT_AGENTS[target.builtin]!.seed : undefined;
  return Object.fromEntries(Object.entries(seed ?? {}).map(([f, text]) => [`tests/seed/${f}`, text]));
}

/** The starter spec: three tests, each ending in a snapshot of the wire (and of the workspace). */
export function specText(target: InitTarget): string {
  const settle = 'builtin' in target ? INIT_AGENTS[target.builtin]!.settle : undefined;
  const seeded = 'builtin' in target && INIT_AGENTS[target.builtin]!.seed !== undefined;
  const TOOL_TEST = TOOL_TEST_TEXT.replace('%WAIT%', settle ? `  await ${settle.call};\n` : '');
  const wait = settle ? `  await ${settle.call};\n` : '';
  return `// Starter tests (written by \`acp-snapshot init\`). \`npm run record\` runs them against your model and writes
// what each replays (tests/__acp__/: the model's exchanges and the snapshots); \`npm test\` replays them keylessly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ${settle ? 'type AcpClient, ' : ''}expect, test } from '@acp-snapshot/playwright';
${settle ? `\n${settle.helper}` : ''}
test('no model: initialize and a new session', async ({ acp }) => {
  await acp.initialize();
  const session = await acp.newSession();
  expect(session.sessionId).toBeTruthy();
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

test('a plain answer', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = await acp.prompt('What is the capital of France? One sentence.');
  expect(turn.stopReason).toBe('end_turn');
  expect(turn.text).toContain('Paris');
${wait}  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});

${seeded ? `test.describe(() => {\n${SEED_USE}\n${indent(TOOL_TEST)}});\n` : TOOL_TEST}`;
}
