// The built-in `agents.geminiCli()` profile, with the agent installed in examples/gemini-cli (`node scripts/examples.mjs`):
// `npm run conformance -- --profile e2e/conformance/targets/gemini-cli.ts --json out.json`.
import { fileURLToPath } from 'node:url';
import { agents } from '@acp-snapshot/playwright';

export default agents.geminiCli({
  projectDir: fileURLToPath(new URL('../../../examples/gemini-cli', import.meta.url)),
});
