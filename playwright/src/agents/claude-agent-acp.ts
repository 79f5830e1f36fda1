/**
 * claude-agent-acp (`@agentclientprotocol/claude-agent-acp`, Claude Code inside): Anthropic Messages, streamed,
 * after a `HEAD /` preflight.
 */
import { builtinAgent } from './builtin.js';

export const claudeAgentAcp = builtinAgent({
  name: 'claudeAgentAcp',
  pkg: '@agentclientprotocol/claude-agent-acp',
  bin: 'claude-agent-acp',
  proven: ['0.101.0'],
  defaultModel: 'claude-sonnet-4-6',
  initialize: { agentName: '@agentclientprotocol/claude-agent-acp', protocolVersion: 1 },
  safety: {
    env: [
      'ANTHROPIC_BASE_URL',
      'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
      'DISABLE_TELEMETRY',
      'DISABLE_AUTOUPDATER',
      'DISABLE_ERROR_REPORTING',
    ],
    home: ['.claude/settings.json#/permissions/defaultMode'],
  },
  profile: (model) => ({
    env: {
      // The harness's model server: the recording's proxy, or the replay. It answers the `HEAD /` preflight.
      ANTHROPIC_BASE_URL: '{{modelBaseUrl}}',
      ANTHROPIC_API_KEY: 'sk-ant-replay-dummy',
      ANTHROPIC_MODEL: model,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
    home: {
      // Pins metadata.user_id's device_id (otherwise random per HOME, written at first start).
      '.claude.json': JSON.stringify({ userID: '0'.repeat(64), firstStartTime: '2025-01-01T00:00:00.000Z' }),
      // Since 0.101 a session starts in `auto`, where edits are approved without asking; a session/set_mode
      // after session/new races the turn's first model call. The settings file fixes the mode from the start.
      '.claude/settings.json': JSON.stringify({ permissions: { defaultMode: 'default' } }),
    },
    // It never exits when stdin closes; SIGTERM ends it.
    exit: 'signal',
    exitGraceMs: 3000,
    settleMs: 500,
    normalize: {
      paths: [
        '/result/agentInfo/version',
        // The session's cost so far sums the model calls finished by the time of the update: the title call
        // beside the first turn counts in it or not, by timing (seen both ways on one machine).
        { path: '/params/update/cost/amount', placeholder: '{{cost}}' },
      ],
      // The same for the session's usage per model in a prompt's result (the turn's own token_count is kept):
      // it counts the title call, and a cut stream's first event, only when they were handled by then.
      patterns: [{ pattern: '"model_usage":\\[[^\\]]*\\]', placeholder: '"model_usage":"{{modelUsage}}"' }],
      // The session title comes from a model call beside the first turn: its update lands anywhere in the turn.
      // The context's usage is sent as each call ends, title call included: before or after a permission request.
      anytimeUpdates: ['available_commands_update', 'session_info_update', 'usage_update'],
      // The permission request comes from the SDK's callback, the input's update from the stream's reader: either
      // is written first (seen once in a re-recording).
      racingPermissionRequests: true,
    },
    requestIds: [
      // metadata.user_id holds the ACP session id.
      { path: '/metadata/user_id', placeholder: '{{userId}}' },
      // The system prompt's environment names the machine's kernel (`OS Version: Linux 6.18.44-...`): it
      // changes with every upgrade of the machine, and recordings made before this rule replay under it.
      { pattern: '(?<=OS Version: )[^\\n]+', placeholder: '{{osVersion}}' },
    ],
  }),
});
