// The built-in `agents.claudeAgentAcp()` profile, with the agent installed in examples/claude-agent-acp (`node scripts/examples.mjs`):
// `npm run conformance -- --profile e2e/conformance/targets/claude-agent-acp.ts --json out.json`.
import { fileURLToPath } from 'node:url';
import { agents } from '@acp-snapshot/playwright';

export default agents.claudeAgentAcp({
  projectDir: fileURLToPath(new URL('../../../examples/claude-agent-acp', import.meta.url)),
});
