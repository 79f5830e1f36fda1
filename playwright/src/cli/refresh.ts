// `npm run refresh -- NAME...`: keyless; re-derives session.jsonl, stdout.expected.jsonl and workspace.expected.json of the named
// scenarios (all when none) from the current code with --project=refresh.
import { runFixtureProject } from './run-project.js';

process.exitCode = await runFixtureProject('refresh', process.argv.slice(2));
