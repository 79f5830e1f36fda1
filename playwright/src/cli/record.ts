// `npm run record -- NAME...`: records the named scenarios (all when none) with --project=record.
// Needs DEEPSEEK_API_KEY, or ACP_SNAPSHOT_BASE_URL (an OpenAI-compatible server, or "emulator"),
// except for scenarios without an emulator script: they call no model (see recordTargetFor).

import { recordTargetFor } from '../modes/record.js';
import { RecordGateError } from '../modes/record-gate.js';
import { discoverScenarios, fixturesDir } from '../scenario/corpus.js';
import { runFixtureProject } from './run-project.js';

const names = process.argv.slice(2);
try {
  for (const name of names.length ? names : discoverScenarios(fixturesDir(), {}))
    recordTargetFor(name, process.env);
} catch (e) {
  if (!(e instanceof RecordGateError)) throw e;
  console.error(`record: ${e.message}`);
  process.exit(2);
}
process.exitCode = await runFixtureProject('record', names);
