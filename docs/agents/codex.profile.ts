// @zed-industries/codex-acp 0.16.0 (codex_cli_rs 0.137.0 inside): OpenAI Responses, streamed.
import type { AgentProfile } from '../../harness/src/profile.js';
import { bin, MODEL_URL, type RequestVolatile } from './shared.js';

export const codex: AgentProfile = {
  command: [bin('codex-acp')],
  env: { REPLAY_API_KEY: 'sk-replay-dummy', TZ: 'UTC', SHELL: '/bin/bash' },
  home: {
    // A provider of our own: `wire_api = "responses"` (codex refuses chat).
    '.codex/config.toml': [
      'model = "gpt-5.1-codex"',
      'model_provider = "replay"',
      'check_for_update_on_startup = false',
      '[model_providers.replay]',
      'name = "replay"',
      `base_url = "${MODEL_URL}/v1"`,
      'env_key = "REPLAY_API_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
    // Pins client_metadata["x-codex-installation-id"] (otherwise a random UUID written on first start).
    '.codex/installation_id': '00000000-0000-4000-8000-000000000000',
  },
  // Does not exit when stdin closes: asked with SIGTERM to its process group, which it obeys.
  exit: 'signal',
  exitGraceMs: 3000,
  // available_commands_update arrives during the turn; nothing after the response.
  settleMs: 500,
  normalize: { paths: ['/result/agentInfo/version'], anytimeUpdates: ['available_commands_update'] },
};

/**
 * `prompt_cache_key` is the session id (a time-ordered UUIDv7); `<current_date>` and `<timezone>` are in the
 * environment context (the date is the server's own rule); HOME appears in the skills' paths (a root). Failed
 * calls are retried with the same body.
 */
export const codexRequests: RequestVolatile = [{ path: '/prompt_cache_key', placeholder: '{{sessionId}}' }];
