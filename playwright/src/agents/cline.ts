/**
 * Cline (`cline`, `cline --acp`; its bin is the native executable of its platform package): its built-in
 * `openai-compatible` provider (OpenAI Chat Completions, streamed) pointed at the harness's model server, with a
 * local session backend so that no hub daemon outlives the agent.
 */
import { builtinAgent } from './builtin.js';

/** Its settings directory under HOME (`~/.cline/data`; the harness passes no CLINE_DIR or CLINE_DATA_DIR). */
const SETTINGS = '.cline/data/settings';
const PROVIDERS = `${SETTINGS}/providers.json`;
const MODELS = `${SETTINGS}/models.json`;
const GLOBAL = `${SETTINGS}/global-settings.json`;

export const cline = builtinAgent({
  name: 'cline',
  pkg: 'cline',
  bin: 'cline',
  // npm links `cline` to the platform package's executable (a Bun binary); the `cline` package's own bin, a
  // Node resolver script that starts it, runs as it is too (its `#!` line), so neither goes through Node here.
  native: true,
  proven: ['3.0.65'],
  // Not a `gpt-` id: for those Cline offers `apply_patch` in place of its `editor` tool.
  defaultModel: 'qwen3-coder-plus',
  initialize: { agentName: 'cline', protocolVersion: 1 },
  safety: {
    env: [
      'CLINE_PROVIDER',
      // `auto` (its default) starts a hub daemon in its own session that outlives the agent.
      'CLINE_SESSION_BACKEND_MODE',
      'CLINE_NO_AUTO_UPDATE',
      // Its feature flags are fetched from its vendor at each start unless it runs as under test.
      'E2E_TEST',
    ],
    home: [
      `${PROVIDERS}#/providers/openai-compatible/settings/baseUrl`,
      `${GLOBAL}#/telemetryOptOut`,
      `${GLOBAL}#/autoUpdateEnabled`,
    ],
  },
  profile: (model) => ({
    args: ['--acp'],
    env: {
      // Its ACP mode refuses session/new until a vendor login (Cline, ClinePass, ChatGPT) is restored or this is
      // set; the session then uses CLINE_PROVIDER, not the vendor's API, and sends this key to it.
      CLINE_API_KEY: 'sk-replay-dummy',
      CLINE_PROVIDER: 'openai-compatible',
      CLINE_MODEL: model,
      CLINE_SESSION_BACKEND_MODE: 'local',
      CLINE_NO_AUTO_UPDATE: '1',
      E2E_TEST: 'true',
    },
    home: {
      [PROVIDERS]: JSON.stringify({
        version: 1,
        lastUsedProvider: 'openai-compatible',
        providers: {
          'openai-compatible': {
            settings: {
              provider: 'openai-compatible',
              apiKey: 'sk-replay-dummy',
              model,
              baseUrl: '{{modelBaseUrl}}/v1',
            },
            updatedAt: '2026-01-01T00:00:00.000Z',
            tokenSource: 'manual',
          },
        },
      }),
      // The provider's bundled catalogue knows only `gpt-4o`: a model id not in it falls back to that one.
      [MODELS]: JSON.stringify({
        version: 1,
        providers: { 'openai-compatible': { models: { [model]: { name: model } } } },
      }),
      // No telemetry (its OpenTelemetry exporter), no update.
      [GLOBAL]: JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }),
    },
    exitGraceMs: 5000,
    settleMs: 500,
    normalize: {
      paths: [
        '/result/agentInfo/version',
        // Each turn ends with a session_info_update holding the time it ended.
        { path: '/params/update/updatedAt', placeholder: '{{updatedAt}}' },
      ],
    },
  }),
});
