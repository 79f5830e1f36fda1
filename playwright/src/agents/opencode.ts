/**
 * OpenCode (`opencode-ai`, `opencode acp`, a native executable): its model through a provider of its own,
 * `@ai-sdk/openai-compatible` (OpenAI Chat Completions, streamed), pointed at the harness's model server.
 */
import { builtinAgent, CWD_FROM_ROOT } from './builtin.js';

/** Its configuration file under HOME (`$XDG_CONFIG_HOME/opencode`; the harness passes no XDG variable). */
const CONFIG_DIR = '.config/opencode';
const CONFIG = `${CONFIG_DIR}/opencode.json`;
const LOCK = `${CONFIG_DIR}/package-lock.json`;

export const opencode = builtinAgent({
  name: 'opencode',
  pkg: 'opencode-ai',
  bin: 'opencode',
  native: true,
  proven: ['1.18.33'],
  // A model id without `gpt-` in it: for those opencode swaps its `write` and `edit` tools for `apply_patch`.
  defaultModel: 'qwen3-coder-plus',
  initialize: { agentName: 'OpenCode', protocolVersion: 1 },
  safety: {
    env: [
      'OPENCODE_DISABLE_AUTOUPDATE',
      'OPENCODE_DISABLE_MODELS_FETCH',
      'OPENCODE_DISABLE_DEFAULT_PLUGINS',
      'OPENCODE_DISABLE_LSP_DOWNLOAD',
    ],
    home: [
      `${CONFIG}#/autoupdate`,
      `${CONFIG}#/share`,
      `${CONFIG}#/enabled_providers`,
      `${CONFIG}#/provider/replay/options/baseURL`,
      `${CONFIG}#/agent/title/disable`,
      `${CONFIG}#/permission/edit`,
      `${CONFIG}#/permission/bash`,
      `${LOCK}#/packages`,
    ],
  },
  profile: (model) => ({
    args: ['acp'],
    env: {
      // No update check or self-upgrade, no fetch of the models.dev catalogue (the bundled one is used), no
      // install of its default plugins from npm, no language server downloads.
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    },
    home: {
      [CONFIG]: JSON.stringify({
        autoupdate: false,
        share: 'disabled',
        // Only the harness's provider: no OpenCode Zen models in session/new's model list (they come from the
        // catalogue bundled with each version) and no call to any other provider.
        enabled_providers: ['replay'],
        model: `replay/${model}`,
        small_model: `replay/${model}`,
        provider: {
          replay: {
            npm: '@ai-sdk/openai-compatible',
            name: 'replay',
            options: { baseURL: '{{modelBaseUrl}}/v1', apiKey: 'sk-replay-dummy' },
            models: { [model]: { name: model } },
          },
        },
        // Its title call runs beside a session's first turn, at a time that varies: off.
        agent: { title: { disable: true } },
        // By default it edits and runs commands without asking; `ask` sends session/request_permission.
        permission: { edit: 'ask', bash: 'ask', webfetch: 'ask' },
      }),
      // At every start it installs its plugin SDK (`@opencode-ai/plugin`, 29 packages) from the npm registry into
      // each config directory, in the background: network in a keyless replay, and most of a test's CPU. It skips
      // the install when the directory has a node_modules and a lockfile that names the package; no plugin is
      // configured, so nothing loads from it.
      [LOCK]: JSON.stringify({
        name: 'opencode',
        lockfileVersion: 3,
        requires: true,
        packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } },
      }),
      [`${CONFIG_DIR}/node_modules/.package-lock.json`]: JSON.stringify({
        name: 'opencode',
        lockfileVersion: 3,
        requires: true,
        packages: {},
      }),
    },
    exitGraceMs: 8000,
    settleMs: 500,
    normalize: {
      paths: ['/result/agentInfo/version'],
      patterns: [
        // Message ids: a clock (hex) then random characters.
        { pattern: 'msg_[0-9a-f]{12}[0-9A-Za-z]{14}', placeholder: '{{messageId}}' },
        // A finished edit's title is the file's path from the worktree root, `/` outside a git repository.
        CWD_FROM_ROOT,
      ],
      anytimeUpdates: ['available_commands_update'],
    },
  }),
});
