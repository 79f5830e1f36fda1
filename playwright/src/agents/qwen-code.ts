/** qwen-code (`@qwen-code/qwen-code`, `qwen --acp`): OpenAI Chat Completions, streamed. */
import { builtinAgent } from './builtin.js';

export const qwenCode = builtinAgent({
  name: 'qwenCode',
  pkg: '@qwen-code/qwen-code',
  bin: 'qwen',
  proven: ['0.24.4'],
  defaultModel: 'qwen3-coder-plus',
  initialize: { agentName: 'qwen-code', protocolVersion: 1 },
  safety: {
    env: ['OPENAI_BASE_URL'],
    home: [
      '.qwen/settings.json#/general/enableAutoUpdate',
      '.qwen/settings.json#/privacy/usageStatisticsEnabled',
      '.qwen/settings.json#/telemetry/enabled',
      '.qwen/settings.json#/memory/enableManagedAutoMemory',
      '.qwen/settings.json#/ui/enableFollowupSuggestions',
      '.qwen/settings.json#/tools/approvalMode',
    ],
  },
  profile: (model) => ({
    args: ['--acp', '--auth-type', 'openai'],
    env: {
      // The harness's model server: the recording's proxy, or the replay.
      OPENAI_BASE_URL: '{{modelBaseUrl}}/v1',
      OPENAI_API_KEY: 'sk-replay-dummy',
      OPENAI_MODEL: model,
      // It relaunches itself to raise its heap limit, loading its bundle twice: ~2 s of CPU per start, 40% of
      // its start's wall time. A test session needs no larger heap.
      QWEN_CODE_NO_RELAUNCH: 'true',
      // Its MCP servers are discovered in the background, so whether the first model request declares their
      // tools depends on timing (0.24.4: the recorded request lacked them, and a tool past discovery is
      // deferred to the next session). This makes session/new wait for discovery: the same tools every run.
      QWEN_CODE_LEGACY_MCP_BLOCKING: '1',
    },
    home: {
      // No update check, no telemetry, and no background model calls (memory extraction, follow-ups). Since
      // 0.24 a session starts in `auto`, where a model classifier approves edits without asking: `default` asks.
      '.qwen/settings.json': JSON.stringify({
        tools: { approvalMode: 'default' },
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
      // Since 0.24 a prompt response carries random record ids in `_meta`.
      paths: [
        '/result/agentInfo/version',
        '/result/_meta/qwen.branchPoint/assistantRecordUuid',
        '/result/_meta/qwen.branchPoint/checkpointUuid',
      ],
      anytimeUpdates: ['available_commands_update'],
    },
  }),
});
