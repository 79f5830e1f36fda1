// @google/gemini-cli 0.61.0 (`gemini --acp`): Gemini generateContent (router) + streamGenerateContent?alt=sse.
import type { AgentProfile } from '../../harness/src/profile.js';
import { bin, MODEL_URL, type RequestVolatile } from './shared.js';

export const gemini: AgentProfile = {
  command: [bin('gemini'), '--acp'],
  env: { GEMINI_API_KEY: 'replay-dummy-key', GOOGLE_GEMINI_BASE_URL: MODEL_URL },
  home: {
    '.gemini/settings.json': JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    }),
  },
  // Exits within ~0.25 s of stdin closing.
  exitGraceMs: 5000,
  // available_commands_update arrives during the turn, before the first message chunk; nothing after the response.
  settleMs: 500,
  normalize: { paths: ['/result/agentInfo/version'], anytimeUpdates: ['available_commands_update'] },
};

/**
 * Every call: the date (the server's own rule); the project temp dir `{{home}}/.gemini/tmp/<cwd basename,
 * lower-cased>`; the install directory in the builtin skills' locations (the `{{install}}` root). The router call
 * (`...flash-lite:generateContent`, not streamed) comes first and its answer picks the model, hence the path of
 * the turn's call.
 */
export const geminiRequests: RequestVolatile = [
  { pattern: '(?<=\\.gemini/tmp/)[a-z0-9._-]+', placeholder: '{{projectTmp}}' },
];
