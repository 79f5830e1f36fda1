import { checkById } from './checks/index.js';
import { runCheck } from './runner.js';
import { ourAgentTarget } from './targets.js';
for (let i = 0; i < Number(process.argv[3] ?? 3); i++) {
  const r = await runCheck(ourAgentTarget(), checkById(process.argv[2]!));
  console.log(r.status, r.ms, r.detail);
  if (r.status !== 'pass') console.log(r.transcript);
}
