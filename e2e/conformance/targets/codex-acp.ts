// The built-in `agents.codexAcp()` profile, with the agent installed in examples/codex-acp (`node scripts/examples.mjs`):
// `npm run conformance -- --profile e2e/conformance/targets/codex-acp.ts --json out.json`.
import { fileURLToPath } from 'node:url';
import { agents } from '@acp-snapshot/playwright';

export default agents.codexAcp({
  projectDir: fileURLToPath(new URL('../../../examples/codex-acp', import.meta.url)),
});
