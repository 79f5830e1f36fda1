// @qwen-code/qwen-code 0.15.10 (`qwen --acp`): OpenAI Chat Completions, streamed. See docs/agents.md.
import type { AgentProfile } from '../../harness/src/profile.js';
import { bin, LONG_DATE, MODEL_URL, type RequestVolatile } from './shared.js';

export const qwen: AgentProfile = {
  command: [bin('qwen'), '--acp', '--auth-type', 'openai'],
  env: {
    OPENAI_BASE_URL: `${MODEL_URL}/v1`,
    OPENAI_API_KEY: 'sk-replay-dummy',
    OPENAI_MODEL: 'emu-model',
  },
  home: {
    // Background model calls (memory extraction, follow-up suggestions) and start-up traffic off.
    '.qwen/settings.json': JSON.stringify({
      general: { enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      memory: { enableManagedAutoMemory: false },
      ui: { enableFollowupSuggestions: false },
    }),
  },
  // Exits within ~0.3 s of stdin closing.
  exitGraceMs: 5000,
  // available_commands_update arrives ~0.85 s after the prompt response.
  settleMs: 1500,
  normalize: {
    // sessionId and `_meta.durationMs` are taken by the base normalization; usage figures are the model's.
    paths: ['/result/agentInfo/version'],
    // Sent at a time that varies (before or after the prompt response): its position is not compared.
    anytimeUpdates: ['available_commands_update'],
  },
};

/** The first user message carries the date, the OS and a listing of the cwd (seeded, so stable). */
export const qwenRequests: RequestVolatile = { patterns: [LONG_DATE] };
