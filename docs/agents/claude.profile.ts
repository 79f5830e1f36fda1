// @zed-industries/claude-agent-acp 0.23.1 (Claude Code 2.1.83 inside): Anthropic Messages, streamed.
import type { AgentProfile } from '../../harness/src/profile.js';
import { bin, MODEL_URL, type RequestVolatile } from './shared.js';

export const claude: AgentProfile = {
  command: [bin('claude-agent-acp')],
  env: {
    ANTHROPIC_BASE_URL: MODEL_URL,
    ANTHROPIC_API_KEY: 'sk-ant-replay-dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
  },
  home: {
    // Pins metadata.user_id's device_id (otherwise a random 64-hex id per HOME) and the first-start time.
    '.claude.json': JSON.stringify({ userID: '0'.repeat(64), firstStartTime: '2025-01-01T00:00:00.000Z' }),
  },
  // Does not exit when stdin closes: asked with SIGTERM to its process group, which it obeys.
  exit: 'signal',
  exitGraceMs: 3000,
  // available_commands_update arrives before the first message chunk; usage_update just before the response.
  settleMs: 500,
  normalize: { paths: ['/result/agentInfo/version'], anytimeUpdates: ['available_commands_update'] },
};

/**
 * `metadata.user_id` is a JSON string holding device_id (pinned above) and session_id (the ACP session id);
 * the system reminder has `Today's date is YYYY-MM-DD.`; the memory path spells the cwd with dashes
 * (`{{home}}/.claude/projects/-tmp-...-cwd/memory/`). A `HEAD /` preflight precedes the first call.
 */
export const claudeRequests: RequestVolatile = {
  paths: ['/metadata/user_id'],
  patterns: [
    { pattern: "Today's date is \\d{4}-\\d{2}-\\d{2}\\.", placeholder: "Today's date is {{date}}." },
    { pattern: '/\\.claude/projects/[^/"]+/', placeholder: '/.claude/projects/{{cwdDashed}}/' },
  ],
};
