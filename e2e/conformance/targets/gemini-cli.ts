// The built-in `agents.geminiCli()` profile, with the agent installed in examples/gemini-cli (`node scripts/examples.mjs`):
// `npm run conformance -- --profile e2e/conformance/targets/gemini-cli.ts --json out.json`.
// The check's workspace is trusted, as an editor's project would be: in an untrusted folder gemini-cli refuses to
// switch to the modes it advertises ("Cannot enable privileged approval modes in an untrusted folder").
import { fileURLToPath } from 'node:url';
import { agents } from '@acp-snapshot/playwright';

export default agents.geminiCli({
  projectDir: fileURLToPath(new URL('../../../examples/gemini-cli', import.meta.url)),
  home: { '.gemini/trustedFolders.json': '{ "{{cwd}}": "TRUST_FOLDER" }\n' },
});
