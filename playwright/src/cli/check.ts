// `check`: the fixture-tree rules. A scenario corpus (fixtures/scenarios/) is checked exactly as the guards
// project runs it (it is that project: the rules need the project's configuration, e.g. the agents a scenario
// may name); the snapshot trees of `defineAcpConfig` projects (`__acp__/`: exchange logs, sidecars, snapshots)
// are checked here directly. Nothing is replayed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkSnapshotTrees } from '../rules/snapshot-tree.js';
import { fixturesDir, REPO_ROOT } from '../scenario/corpus.js';
import { runFixtureProject } from './run-project.js';

const args = process.argv.slice(2);
const corpus = existsSync(join(fixturesDir(), 'scenarios'));
const { trees, violations } = await checkSnapshotTrees(REPO_ROOT);
for (const v of violations) console.error(`check: [${v.rule}] ${v.message}`);
if (trees.length)
  console.error(
    `check: ${trees.length} snapshot tree(s) (${trees.join(', ')}): ${violations.length ? `${violations.length} problem(s)` : 'ok'}`,
  );
let code = violations.length ? 1 : 0;
if (corpus) code = Math.max(code, await runFixtureProject('guards', args));
else if (!trees.length) {
  console.error(
    `check: nothing to check in ${REPO_ROOT}: no fixtures/scenarios/ and no __acp__/ snapshot tree (run it in the directory of your playwright.config.ts)`,
  );
  code = 2;
}
process.exitCode = code;
