// claude-agent-acp over ACP, its model calls recorded once (the `claude:record` project, against the Anthropic
// API or any stand-in) and replayed keylessly from the committed exchange logs (the default `claude` project).
import { type AgentProfile, defineAcpConfig } from '@acp-snapshot/playwright';

const claude: AgentProfile = {
  command: ['./node_modules/.bin/claude-agent-acp'],
  env: {
    // The harness's model server: the recording's proxy, or the replay. It answers the `HEAD /` preflight.
    ANTHROPIC_BASE_URL: '{{modelBaseUrl}}',
    ANTHROPIC_API_KEY: 'sk-ant-replay-dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
  },
  home: {
    // Pins metadata.user_id's device_id (otherwise random per HOME, written at first start).
    '.claude.json': JSON.stringify({ userID: '0'.repeat(64), firstStartTime: '2025-01-01T00:00:00.000Z' }),
  },
  // It never exits when stdin closes; SIGTERM ends it.
  exit: 'signal',
  exitGraceMs: 3000,
  // Nothing comes after the prompt response.
  settleMs: 500,
  normalize: {
    paths: ['/result/agentInfo/version'],
    anytimeUpdates: ['available_commands_update'],
  },
};

export default defineAcpConfig({
  agents: { claude },
  // metadata.user_id holds the ACP session id (random per run); the dates and the dashed cwd in the memory
  // path are normalized by the model server itself.
  model: { kind: 'http', ids: [{ path: '/metadata/user_id', placeholder: '{{userId}}' }] },
  // Recording: `MODEL_UPSTREAM_URL=https://... ANTHROPIC_API_KEY=... npm run record` (the key is never stored).
  record: { upstream: { baseUrlEnv: 'MODEL_UPSTREAM_URL', apiKeyEnv: 'ANTHROPIC_API_KEY' } },
  playwright: { timeout: 90_000, workers: process.env.CI ? 2 : undefined },
});
