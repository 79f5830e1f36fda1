/** codex-acp (`@agentclientprotocol/codex-acp` 2.x, a TypeScript adapter around `codex app-server`): OpenAI Responses. */
import { builtinAgent } from './builtin.js';

export const codexAcp = builtinAgent({
  name: 'codexAcp',
  pkg: '@agentclientprotocol/codex-acp',
  bin: 'codex-acp',
  proven: ['2.6.0'],
  defaultModel: 'gpt-6.1-sol',
  initialize: { agentName: '@agentclientprotocol/codex-acp', protocolVersion: 1 },
  // Its package names no engines, but on Node 20 the tools its turn call lists differ between runs (a recording
  // held the `clock` tools, its replay's request not), so nothing replays; on Node 22 they are stable.
  minNode: 22,
  safety: { env: ['INITIAL_AGENT_MODE'], home: [] },
  profile: (model) => ({
    env: {
      REPLAY_API_KEY: 'sk-replay-dummy',
      // A session starts in `agent` (auto review): an escalation goes to a review model call, not to the
      // client. `workspace-write` asks the client.
      INITIAL_AGENT_MODE: 'workspace-write',
      TZ: 'UTC',
      SHELL: '/bin/bash',
    },
    home: {
      // A provider of its own pointed at the harness's model server: `wire_api = "responses"`.
      '.codex/config.toml': [
        `model = "${model}"`,
        'model_provider = "replay"',
        'check_for_update_on_startup = false',
        '[model_providers.replay]',
        'name = "replay"',
        'base_url = "{{modelBaseUrl}}/v1"',
        'env_key = "REPLAY_API_KEY"',
        'wire_api = "responses"',
        '',
      ].join('\n'),
      // Pins client_metadata["x-codex-installation-id"] (otherwise a random UUID written on first start).
      '.codex/installation_id': '00000000-0000-4000-8000-000000000000',
    },
    // It never exits when stdin closes; SIGTERM ends it.
    exit: 'signal',
    exitGraceMs: 3000,
    settleMs: 500,
    normalize: {
      paths: ['/result/agentInfo/version'],
      // An MCP tool called from `exec` is a tool call `exec-<UUID>` (on the wire and in the tools/call `_meta`);
      // the tools/call also carries the turn's id and start time (mcp.jsonl).
      patterns: [
        {
          pattern: 'exec-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
          placeholder: 'exec-{{execId}}',
        },
        { pattern: '"turn_id":"[0-9a-f-]{36}"', placeholder: '"turn_id":"{{turnId}}"' },
        {
          pattern: '"turn_started_at_unix_ms":\\d+',
          placeholder: '"turn_started_at_unix_ms":"{{turnStartedAt}}"',
        },
      ],
      anytimeUpdates: ['available_commands_update'],
    },
    requestIds: [
      // The session id; each input item's id (a UUIDv5 or v7); the turn's metadata (ids, its start in ms,
      // the HOME directory as `agent_name`).
      { path: '/prompt_cache_key', placeholder: '{{sessionId}}' },
      { path: '/input/*/id', placeholder: '{{itemId}}' },
      { path: '/client_metadata/*', placeholder: '{{clientMetadata}}' },
      // A command's output, returned to the model, starts with a random chunk id and the time it took (an `exec`
      // script's output says `Wall time 0.1 seconds`, with no colon).
      { pattern: 'Chunk ID: [0-9a-f]+', placeholder: '{{chunkId}}' },
      { pattern: 'Wall time:? [0-9.]+ seconds', placeholder: '{{wallTime}}' },
    ],
  }),
});
