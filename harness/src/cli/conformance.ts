// `npm run conformance -- [--only ID,ID] [--jobs N] [--json FILE] CMD [ARGS...]`: runs the ACP v1
// conformance checks against any agent command over stdio, prints the result table, exits 1 on failures.
import { writeFileSync } from 'node:fs';
import { ALL_CHECKS, checkById } from '../conformance/checks/index.js';
import { formatTable, runChecks, summarize } from '../conformance/runner.js';

const USAGE = 'usage: npm run conformance -- [--only ID,ID] [--jobs N] [--json FILE] CMD [ARGS...]';

interface Cli {
  only?: string[];
  jobs: number;
  json?: string;
  command: string[];
}

function parseArgs(argv: string[]): Cli {
  const cli: Cli = { jobs: 2, command: [] };
  let i = 0;
  const value = (flag: string): string => {
    const v = argv[++i];
    if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    return v;
  };
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a === '--only') cli.only = value(a).split(',').filter(Boolean);
    else if (a === '--jobs') {
      cli.jobs = Number(value(a));
      if (!Number.isInteger(cli.jobs) || cli.jobs < 1)
        throw new Error(`--jobs must be a positive integer\n${USAGE}`);
    } else if (a === '--json') cli.json = value(a);
    else if (a === '--help' || a === '-h') {
      console.log(
        `${USAGE}\n\nchecks:\n${ALL_CHECKS.map((c) => `  ${c.id.padEnd(34)} ${c.title}`).join('\n')}`,
      );
      process.exit(0);
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a}\n${USAGE}`);
    else break;
  }
  cli.command = argv.slice(i);
  if (cli.command.length === 0) throw new Error(`no agent command given\n${USAGE}`);
  return cli;
}

async function main(): Promise<number> {
  const cli = parseArgs(process.argv.slice(2));
  const checks = cli.only ? cli.only.map(checkById) : ALL_CHECKS;
  const [command, ...args] = cli.command as [string, ...string[]];
  process.stderr.write(`ACP conformance: ${checks.length} checks against ${cli.command.join(' ')}\n`);
  const results = await runChecks(
    // The agent gets this shell's environment: a real agent may need its own keys and settings.
    { name: cli.command.join(' '), command, args, env: { ...process.env }, processCwd: process.cwd() },
    checks,
    {
      jobs: cli.jobs,
      onResult: (r) => process.stderr.write(`  ${r.status.padEnd(4)} ${r.id} (${r.ms} ms)\n`),
    },
  );
  console.log(formatTable(results));
  console.log(`\n${summarize(results)}`);
  if (cli.json) writeFileSync(cli.json, `${JSON.stringify(results, null, 2)}\n`);
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    console.error(`conformance: ${e.message}`);
    process.exit(2);
  },
);
