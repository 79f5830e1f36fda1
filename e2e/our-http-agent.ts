/** Our agent as an agent reached over HTTP: its OpenAI-compatible plugin pointed at the harness's model server. */
import { join } from 'node:path';
import type { AgentProfile } from '@acp-snapshot/playwright';
import { REPO_ROOT } from '@acp-snapshot/playwright/testing';

export const ourHttpAgent: AgentProfile = {
  command: [
    process.execPath,
    join(REPO_ROOT, 'agent/dist/main.js'),
    '--overlay',
    join(REPO_ROOT, 'agent/overlays/record.json'),
  ],
  env: { ACP_SNAPSHOT_BASE_URL: '{{modelBaseUrl}}', DEEPSEEK_API_KEY: 'local-no-key' },
};
