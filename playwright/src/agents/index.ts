/**
 * Built-in profiles of ACP agents published on npm, each a function returning an `AgentProfile` for
 * `defineAcpConfig({ agents: { qwen: agents.qwenCode() } })`: the agent resolved from the project's
 * `node_modules`, pointed at the harness's model server, quiet, and normalized as its proven versions need.
 */
export type { BuiltinAgentOptions } from './builtin.js';
export { claudeAgentAcp } from './claude-agent-acp.js';
export { cline } from './cline.js';
export { codexAcp } from './codex-acp.js';
export { copilotCli } from './copilot-cli.js';
export { geminiCli } from './gemini-cli.js';
export { opencode } from './opencode.js';
export { qwenCode } from './qwen-code.js';
