// Our reference agent as an agent profile (the shape users write for the harness), in record mode against
// the kit's prompt-aware model stand-in: `npm run conformance -- --profile e2e/conformance/targets/acp-snapshot-agent.ts`
// (after `npm run build`). The conformance project runs it too.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentProfile } from '@acp-snapshot/playwright';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

export const profile: AgentProfile = {
  command: [
    process.execPath,
    join(repo, 'agent', 'dist', 'main.js'),
    '--overlay',
    join(repo, 'agent', 'overlays', 'record.json'),
  ],
  env: {
    ACP_SNAPSHOT_MODE: 'record',
    ACP_SNAPSHOT_SCENARIO: 'conformance',
    ACP_SNAPSHOT_PERSIST_ROOT: '{{tmp}}',
    ACP_SNAPSHOT_SPILL_ROOT: '{{home}}',
    ACP_SNAPSHOT_BASE_URL: '{{modelBaseUrl}}',
    DEEPSEEK_API_KEY: 'sk-test-conformance',
    TZ: 'UTC',
  },
};

export default profile;
