/**
 * Our agent as any agent reached over HTTP (its OpenAI-compatible plugin pointed at `{{modelBaseUrl}}`), and
 * the emulator script its HTTP-model tests record against: like a real model, it quotes the absolute cwd
 * from the system prompt and streams emoji and CJK split into three-character pieces.
 */
import { join } from 'node:path';
import type { Script } from '@acp-snapshot/emulator';
import type { AgentProfile } from '@acp-snapshot/playwright';
import { REPO_ROOT } from '@acp-snapshot/playwright/testing';

export const OUR_AGENT_OVER_HTTP: AgentProfile = {
  command: [
    process.execPath,
    join(REPO_ROOT, 'agent/dist/main.js'),
    '--overlay',
    join(REPO_ROOT, 'agent/overlays/record.json'),
  ],
  env: { ACP_SNAPSHOT_BASE_URL: '{{modelBaseUrl}}', DEEPSEEK_API_KEY: 'local-no-key' },
};

export const HELLO_SCRIPT: Script = {
  vars: { cwd: { from: 'system', pattern: 'Working directory: (\\S+)' } },
  responses: [
    {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the emulator's own template, filled from the request
      reply: { text: 'Hello 👋 你好! I am working in ${cwd}, ready when you are 🚀.' },
      chunking: { textPieceChars: 3 },
    },
  ],
};
