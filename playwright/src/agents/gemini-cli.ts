/** gemini-cli (`@google/gemini-cli`, `gemini --acp`): Gemini generateContent (a router call) and streamGenerateContent. */
import { builtinAgent } from './builtin.js';

export const geminiCli = builtinAgent({
  name: 'geminiCli',
  pkg: '@google/gemini-cli',
  bin: 'gemini',
  proven: ['0.61.0'],
  defaultModel: 'gemini-3.5-flash',
  initialize: { agentName: 'gemini-cli', protocolVersion: 1 },
  safety: {
    env: ['GOOGLE_GEMINI_BASE_URL'],
    home: [
      '.gemini/settings.json#/general/disableAutoUpdate',
      '.gemini/settings.json#/general/disableUpdateNag',
      '.gemini/settings.json#/privacy/usageStatisticsEnabled',
      '.gemini/settings.json#/telemetry/enabled',
    ],
  },
  profile: (model) => ({
    args: ['--acp', '--model', model],
    // No `/v1beta`: the client adds it.
    env: {
      GEMINI_API_KEY: 'replay-dummy-key',
      GOOGLE_GEMINI_BASE_URL: '{{modelBaseUrl}}',
      // It relaunches itself to raise its heap limit, loading its bundle twice: ~2 s of CPU per start, 40% of
      // its start's wall time. A test session needs no larger heap.
      GEMINI_CLI_NO_RELAUNCH: 'true',
    },
    home: {
      '.gemini/settings.json': JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    },
    // The client writes, gemini reads from disk. A read through the client of a file that does not exist yet
    // answers resource-not-found (-32002), as an editor's does; gemini 0.61 takes that for an unreadable file
    // (it knows "not found" only from an Error, and the SDK hands it the JSON-RPC error object), skips its
    // confirmation and fails the write: a new file was never asked for. Its own read of the same workspace
    // says ENOENT, and the write is asked once and sent to the client (`fs/write_text_file`).
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: true } },
    // It exits within ~0.25 s of stdin closing.
    exitGraceMs: 5000,
    settleMs: 500,
    normalize: {
      paths: ['/result/agentInfo/version'],
      // A function call's id is `<tool>_<Date.now()>_<n>` (its tool call id on stdout holds it too).
      patterns: [{ pattern: '_\\d{13}_(\\d+)', placeholder: '_{{now}}_$1' }],
      anytimeUpdates: ['available_commands_update'],
    },
    requestIds: [
      { pattern: '(?<=[a-z]_)\\d{13}(?=_\\d)', placeholder: '{{now}}' },
      // Its bundled skills are listed in an order that varies between runs (the system instruction's
      // <available_skills> and the activate_skill tool's description).
      { pattern: '<available_skills>[\\s\\S]*?</available_skills>', placeholder: '{{skills}}' },
      { pattern: "\\(Available: '[^)]*'\\)", placeholder: '{{skillNames}}' },
      {
        path: '/tools/*/functionDeclarations/*/parametersJsonSchema/properties/name/enum/*',
        placeholder: '{{skillName}}',
      },
      // The project temp dir `.gemini/tmp/<cwd basename>`: a spelling of the cwd the roots do not catch.
      { pattern: '\\.gemini/tmp/[a-z0-9._-]+', placeholder: '{{projectTmp}}' },
    ],
  }),
});
