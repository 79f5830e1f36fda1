/**
 * GitHub Copilot CLI (`@github/copilot`, `copilot --acp`; a Node loader that starts its platform package's
 * native executable): its own provider mode (BYOK), OpenAI Chat Completions, streamed, with no GitHub login.
 */
import { builtinAgent, CWD_FROM_ROOT } from './builtin.js';

export const copilotCli = builtinAgent({
  name: 'copilotCli',
  pkg: '@github/copilot',
  bin: 'copilot',
  proven: ['1.0.102'],
  defaultModel: 'qwen3-coder-plus',
  initialize: { agentName: 'Copilot', protocolVersion: 1 },
  safety: {
    env: [
      'COPILOT_PROVIDER_BASE_URL',
      'COPILOT_OFFLINE',
      'COPILOT_AUTO_UPDATE',
      // Unset: it would approve every tool call without asking the client.
      'COPILOT_ALLOW_ALL',
    ],
    home: [],
  },
  profile: (model) => ({
    args: ['--acp', '--no-auto-update', '--disable-client-telemetry'],
    env: {
      // Its provider mode: the harness's model server, no GitHub authentication.
      COPILOT_PROVIDER_BASE_URL: '{{modelBaseUrl}}/v1',
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: 'sk-replay-dummy',
      COPILOT_MODEL: model,
      // No network but the provider: no GitHub login or policy fetch, no telemetry, web tools, GitHub MCP
      // server or update.
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      // The executable unpacks its JavaScript package (235 MB, ~6 s) into a cache under HOME at its first start:
      // a fixed cache beside the harness's other ones unpacks it once per version, not once per test.
      COPILOT_PKG_CACHE_HOME: '/tmp/acp-snapshot-copilot-pkg',
    },
    exitGraceMs: 5000,
    settleMs: 500,
    normalize: {
      paths: [
        '/result/agentInfo/version',
        // The session's title (its first prompt) comes with the time it was set.
        { path: '/params/update/updatedAt', placeholder: '{{updatedAt}}' },
        // The context's size in tokens, counted by its own tokenizer over the prompt, random ids included.
        { path: '/params/update/used', placeholder: '{{contextUsed}}' },
      ],
      patterns: [
        // A file's diff names it `a/<path from />`.
        CWD_FROM_ROOT,
        // A tool call's title shortens a long path from the left: `Creating ...-uBXPkM/acp-snap-.../work/notes.txt`.
        { pattern: '(?<=\\.\\.\\.)[\\w/-]*?/work(?=/)', placeholder: '{{cwdTail}}' },
      ],
      anytimeUpdates: ['available_commands_update', 'session_info_update', 'config_option_update'],
    },
    requestIds: [
      // Each user message starts with the time it was sent, to the millisecond.
      { pattern: '<current_datetime>[^<]*</current_datetime>', placeholder: '{{currentDatetime}}' },
      // The system prompt names the session's state directory, `~/.copilot/session-state/<session id>`.
      {
        pattern: '(?<=session-state/)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
        placeholder: '{{sessionId}}',
      },
    ],
  }),
});
