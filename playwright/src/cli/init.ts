// `acp-snapshot init --agent NAME` (a built-in profile) or `acp-snapshot init -- COMMAND...` (any ACP agent):
// writes playwright.config.ts, a starter spec and the npm scripts to record and to replay, in the current
// directory (the project), then prints the two commands to run next. Exit codes: 0 written, 1 nothing
// written (a file exists, the agent is not installed...), 2 bad usage.
import { parseArgs } from 'node:util';
import { InitError, type InitPlan, planInit, writeInit } from './init-project.js';
import { INIT_AGENTS, type InitTarget } from './init-templates.js';

const USAGE = `usage: npx acp-snapshot init --agent NAME      (a built-in agent: ${Object.keys(INIT_AGENTS).join(', ')})
       npx acp-snapshot init -- COMMAND [ARG...]  (any other ACP agent over stdio)`;

function target(argv: string[]): InitTarget {
  const dash = argv.indexOf('--');
  const { values, positionals } = parseArgs({
    args: dash < 0 ? argv : argv.slice(0, dash),
    options: { agent: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) throw Object.assign(new Error(USAGE), { help: true });
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  if (positionals.length > 0)
    throw new Error(`unexpected ${positionals.join(' ')}: an agent's command goes after --`);
  if (values.agent !== undefined && command.length > 0)
    throw new Error('give either --agent NAME or -- COMMAND..., not both');
  if (values.agent !== undefined) return { builtin: values.agent };
  if (command.length > 0) return { command };
  throw new Error('which agent? give --agent NAME or -- COMMAND...');
}

async function main(argv: string[]): Promise<number> {
  let t: InitTarget;
  try {
    t = target(argv);
  } catch (e) {
    if ((e as { help?: boolean }).help) {
      console.log(USAGE);
      return 0;
    }
    console.error(`init: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  let plan: InitPlan;
  try {
    plan = planInit(process.cwd(), t);
  } catch (e) {
    if (!(e instanceof InitError)) throw e;
    console.error(`init: ${e.message}`);
    // An unknown built-in name is a usage error; the rest is the project's state.
    return 'builtin' in t && !(t.builtin in INIT_AGENTS) ? 2 : 1;
  }
  await writeInit(plan);
  for (const w of plan.warnings) console.warn(`init: warning: ${w}`);
  const scripts = Object.entries(plan.scripts).map(([n, c]) => `"${n}": "${c}"`);
  console.log(
    `init: wrote ${Object.keys(plan.files).join(', ')}${scripts.length ? `; package.json scripts ${scripts.join(', ')}` : ''}.

Next:
  1. Record the tests once against your model (the URL and key are used, never stored):
       MODEL_UPSTREAM_URL=<your-provider-base-url> ${plan.keyEnv}=<your-key> ${plan.record}
  2. Replay them keylessly, offline (commit tests/ with its __acp__/ recordings):
       ${plan.replay}`,
  );
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
