/**
 * What `acp-snapshot init` writes: the built-in agents it knows (by the names of the example projects), and
 * the text of the config and the starter spec, the same shape as the examples' (a replay project and its
 * key-gated `:record` twin; a spec that calls the package's starter suite, then a place for the user's tests).
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
   * The starter suite's options for this agent (`starterSuite({...})`'s lines, as the example project
   * gives them less what its scripted stand-in model quotes): updates to wait for, the cancel's moment.
   */
  suite?: string[];
  /**
   * Files already in the tool test's workspace (under tests/seed/): an agent that asks only before it
   * overwrites a file gets one to overwrite.
   */
  seed?: Record<string, string>;
}

/** The built-in agents, by the name `init --agent` takes (the example project's directory name). */
export const INIT_AGENTS: Record<string, InitAgent> = {
  'claude-agent-acp': {
    profile: agents.claudeAgentAcp,
    project: 'claude',
    keyEnv: 'ANTHROPIC_API_KEY',
    wire: 'Anthropic Messages',
    suite: [
      '// Its commands come twice after the first prompt, and the session title from a model call beside the turn.',
      'settle: { available_commands_update: 2, session_info_update: 1 },',
      "cancelAfter: ['agent_message_chunk', 'session_info_update'],",
    ],
  },
  cline: {
    profile: agents.cline,
    project: 'cline',
    keyEnv: 'OPENAI_API_KEY',
    wire: 'OpenAI Chat Completions',
    // No suite options: its one late-looking update (`session_info_update`) comes before each prompt's
    // response, and its first message chunk is the model's, so the defaults wait for what they need.
  },
  'codex-acp': {
    profile: agents.codexAcp,
    project: 'codex',
    keyEnv: 'OPENAI_API_KEY',
    wire: 'OpenAI Responses',
    suite: [
      '// codex forwards each streamed piece from a thread of its own: a cancel sent after the first piece can',
      '// overtake the second, so the cancel waits for two.',
      "cancelAfter: ['agent_message_chunk', 'agent_message_chunk'],",
    ],
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
    suite: [
      "// qwen lists its commands at a time that varies after a session's first prompt.",
      'settle: { available_commands_update: 1 },',
    ],
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

/** The seed files init writes, by path relative to the project. */
export function seedFiles(target: InitTarget): Record<string, string> {
  const seed = 'builtin' in target ? INIT_AGENTS[target.builtin]!.seed : undefined;
  return Object.fromEntries(Object.entries(seed ?? {}).map(([f, text]) => [`tests/seed/${f}`, text]));
}

/** The mark above the user's own tests in the starter spec. */
export const YOUR_TESTS = '// ---- Your own tests: below this line. ----';

/** The starter spec: the package's starter suite, with this agent's options, then a place for the user's tests. */
export function specText(target: InitTarget): string {
  const entry = 'builtin' in target ? INIT_AGENTS[target.builtin]! : undefined;
  const lines = [
    ...(entry?.suite ?? []),
    // Run from the project's directory (as npm scripts are).
    ...(entry?.seed
      ? ['// The tool test starts with tests/seed/ in its workspace.', "toolSeed: 'tests/seed',"]
      : []),
  ];
  const options = lines.length ? `{\n${lines.map((l) => `  ${l}\n`).join('')}}` : '';
  return `// Starter tests (written by \`acp-snapshot init\`). \`npm run record\` runs them against your model and writes
// what each replays (tests/__acp__/: the model's exchanges and the snapshots); \`npm test\` replays them keylessly.
import { expect, starterSuite, test } from '@acp-snapshot/playwright';

// The package's starter tests: no model, a plain answer, a tool call with a permission request, a multi-turn
// conversation, a cancelled turn. Their titles name their recordings; \`skip: [TITLE]\` leaves one out.
starterSuite(${options});

${YOUR_TESTS}
// Each test drives the agent over ACP and ends in a snapshot of the wire and the workspace; \`npm run record\`
// records it once. For example:
//
// test('my agent explains a file', async ({ acp }) => {
//   await acp.initialize();
//   await acp.newSession();
//   const turn = await acp.prompt('What does README.md say? One sentence.');
//   expect(turn.stopReason).toBe('end_turn');
//   await acp.close();
//   await expect(acp).toMatchAcpSnapshot();
// });
`;
}
