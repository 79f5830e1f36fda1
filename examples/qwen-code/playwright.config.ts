// qwen-code over ACP, its model calls recorded once (the `qwen:record` project, against a real OpenAI-compatible
// API or any stand-in) and replayed keylessly from the committed exchange logs (the default `qwen` project).
import { type AgentProfile, defineAcpConfig } from '@acp-snapshot/playwright';

const qwen: AgentProfile = {
  command: ['./node_modules/.bin/qwen', '--acp', '--auth-type', 'openai'],
  env: {
    // The harness's model server: the recording's proxy, or the replay.
    OPENAI_BASE_URL: '{{modelBaseUrl}}/v1',
    OPENAI_API_KEY: 'sk-replay-dummy',
    OPENAI_MODEL: 'qwen3-coder-plus',
  },
  home: {
    // No auto-update check, no telemetry, and no background model calls (memory extraction, follow-ups).
    '.qwen/settings.json': JSON.stringify({
      general: { enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      memory: { enableManagedAutoMemory: false },
      ui: { enableFollowupSuggestions: false },
    }),
  },
  // It exits within ~0.3 s of stdin closing.
  exitGraceMs: 5000,
  // Its available_commands_update comes up to ~1 s after the prompt response.
  settleMs: 1500,
  normalize: {
    paths: ['/result/agentInfo/version'],
    anytimeUpdates: ['available_commands_update'],
  },
};

export default defineAcpConfig({
  agents: { qwen },
  model: { kind: 'http' },
  // Recording: `MODEL_UPSTREAM_URL=https://... OPENAI_API_KEY=... npm run record` (the key is never stored).
  record: { upstream: { baseUrlEnv: 'MODEL_UPSTREAM_URL', apiKeyEnv: 'OPENAI_API_KEY' } },
  playwright: {
    // qwen loads a 26 MB bundle at start: ~10 s on a busy 2-core machine.
    timeout: 90_000,
    workers: process.env.CI ? 2 : undefined,
  },
});
