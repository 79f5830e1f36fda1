// `npm run record -- NAME...`: records the named scenarios (all when none) with --project=record.
// Needs DEEPSEEK_API_KEY, or ACP_SNAPSHOT_BASE_URL (an OpenAI-compatible server, or "emulator").
import { runFixtureProject } from '../e2e/cli.js';
import { RecordGateError, recordTarget } from '../e2e/record-mode.js';

try {
  recordTarget(process.env);
} catch (e) {
  if (!(e instanceof RecordGateError)) throw e;
  console.error(`record: ${e.message}`);
  process.exit(2);
}
process.exitCode = await runFixtureProject('record', process.argv.slice(2));
