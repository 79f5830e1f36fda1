import { writeFileSync } from 'node:fs';
import { ALL_CHECKS } from './checks/index.js';
import { runChecks } from './runner.js';
import { ourAgentTarget, sdkExampleTarget } from './targets.js';
const which = process.argv[2]!;
const target = which === 'ours' ? ourAgentTarget() : sdkExampleTarget();
const results = await runChecks(target, ALL_CHECKS, { jobs: 2 });
writeFileSync(`/tmp/conformance-${which}.json`, JSON.stringify(results.map(({ transcript, ...r }) => r), null, 2));
for (const r of results) console.log(r.status.padEnd(4), r.id, '-', r.detail);
