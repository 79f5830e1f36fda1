// The built-in `agents.qwenCode()` profile, with the agent installed in examples/qwen-code (`node scripts/examples.mjs`):
// `npm run conformance -- --profile e2e/conformance/targets/qwen-code.ts --json out.json`.
import { fileURLToPath } from 'node:url';
import { agents } from '@acp-snapshot/playwright';

export default agents.qwenCode({
  projectDir: fileURLToPath(new URL('../../../examples/qwen-code', import.meta.url)),
});
