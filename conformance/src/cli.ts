/**
 * The kit's command line, `acp-snapshot conformance [OPTIONS] (--profile FILE | CMD [ARGS...])` (and
 * `npm run conformance -- ...` here): runs the ACP v1 conformance checks (or with `--protocol 2` the v2 ones, an
 * agent answering 1 reported v1-only) against any agent over stdio and prints the report (target, protocol,
 * deadlines, result table, counts). Its exit code: 1 on failures, 2 on a usage
 * error.
 */
import { writeFileSync } from 'node:fs';
import { describeTimeouts } from './check.js';
import { checkById, checksFor } from './checks/index.js';
import { type ConformanceProfile, loadProfile, profileTarget } from './profile-target.js';
import {
  countByLevel,
  effectiveTimeouts,
  formatTable,
  runSuite,
  summarize,
  summarizeLevels,
  v1OnlyVerdict,
} from './runner.js';

const USAGE =
  'usage: npm run conformance -- [--protocol 1|2] [--only ID,ID] [--jobs N] [--json FILE] [--deadline-scale N] [--env NAME=VALUE]... ' +
  '[--pass-env NAME]... [--name NAME] (--profile FILE | CMD [ARGS...])';
const SCALE_ENV = 'ACP_CONFORMANCE_DEADLINE_SCALE';

interface Cli {
  /** `--help`: print the usage and the checks, run nothing. */
  help?: boolean;
  only?: string[];
  /** The suite: the ACP v1 checks (default) or the v2 checks. */
  protocol: 1 | 2;
  jobs: number;
  json?: string;
  scale: number;
  profile?: string;
  name?: string;
  env: Record<string, string>;
  command: string[];
}

function positiveNumber(text: string, what: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new Error(`${what} must be a positive number, got ${JSON.stringify(text)}\n${USAGE}`);
  return n;
}

function parseArgs(argv: string[], parentEnv: NodeJS.ProcessEnv): Cli {
  const fromEnv = parentEnv[SCALE_ENV];
  const cli: Cli = {
    protocol: 1,
    jobs: 2,
    scale: fromEnv === undefined ? 1 : positiveNumber(fromEnv, SCALE_ENV),
    env: {},
    command: [],
  };
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
    else if (a === '--protocol') {
      const v = value(a);
      if (v !== '1' && v !== '2')
        throw new Error(`--protocol takes 1 or 2, got ${JSON.stringify(v)}\n${USAGE}`);
      cli.protocol = Number(v) as 1 | 2;
    } else if (a === '--jobs') {
      cli.jobs = Number(value(a));
      if (!Number.isInteger(cli.jobs) || cli.jobs < 1)
        throw new Error(`--jobs must be a positive integer\n${USAGE}`);
    } else if (a === '--json') cli.json = value(a);
    else if (a === '--deadline-scale') cli.scale = positiveNumber(value(a), '--deadline-scale');
    else if (a === '--profile') cli.profile = value(a);
    else if (a === '--name') cli.name = value(a);
    else if (a === '--env') {
      const kv = value(a);
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new Error(`--env takes NAME=VALUE, got ${JSON.stringify(kv)}\n${USAGE}`);
      cli.env[kv.slice(0, eq)] = kv.slice(eq + 1);
    } else if (a === '--pass-env') {
      const name = value(a);
      const v = parentEnv[name];
      if (v === undefined) throw new Error(`--pass-env ${name}: ${name} is not set in this shell`);
      cli.env[name] = v;
    } else if (a === '--help' || a === '-h') return { ...cli, help: true };
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}\n${USAGE}`);
    else break;
  }
  cli.command = argv.slice(i);
  if (cli.profile && cli.command.length > 0)
    throw new Error(`give either --profile or an agent command, not both\n${USAGE}`);
  if (!cli.profile && cli.command.length === 0) throw new Error(`no agent command given\n${USAGE}`);
  return cli;
}

async function run(argv: readonly string[], parentEnv: NodeJS.ProcessEnv): Promise<number> {
  const cli = parseArgs([...argv], parentEnv);
  if (cli.help) {
    console.log(
      `${USAGE}\n\nchecks (--protocol ${cli.protocol}):\n${checksFor(cli.protocol)
        .map((c) => `  ${c.id.padEnd(34)} ${c.level.padEnd(10)} ${c.title}`)
        .join('\n')}`,
    );
    return 0;
  }
  const suite = checksFor(cli.protocol);
  // A v2 run always starts with the negotiation: its answer says whether the other checks apply.
  const picked = cli.only ? cli.only.map((id) => checkById(id, cli.protocol)) : suite;
  const checks =
    cli.protocol === 2 && picked[0] !== suite[0]
      ? [suite[0]!, ...picked.filter((c) => c !== suite[0])]
      : picked;
  // The agent gets a clean environment: only what the profile, --env and --pass-env declare is added.
  const profile: ConformanceProfile = cli.profile ? await loadProfile(cli.profile) : { command: cli.command };
  const name =
    cli.name ?? (cli.profile ? `${cli.profile} (${profile.command.join(' ')})` : cli.command.join(' '));
  // Relative paths in the command resolve against the directory the command line runs in.
  const target = profileTarget(profile, { name, extraEnv: cli.env, processCwd: process.cwd() });
  const timeouts = effectiveTimeouts(target, { deadlineScale: cli.scale });
  process.stderr.write(`ACP conformance (v${cli.protocol}): ${checks.length} checks against ${name}\n`);
  const results = await runSuite(target, checks, {
    jobs: cli.jobs,
    deadlineScale: cli.scale,
    onResult: (r) => process.stderr.write(`  ${r.status.padEnd(4)} ${r.id} (${r.ms} ms)\n`),
  });
  const info = results.find((r) => r.agentInfo)?.agentInfo;
  const deadlines = `deadline scale ${cli.scale} (${describeTimeouts(timeouts)})`;
  console.log(`target: ${name}`);
  console.log(`agent: ${info ? `${String(info.name)} ${String(info.version)}` : 'no agentInfo'}`);
  const v1Only = v1OnlyVerdict(results);
  console.log(`protocol: ${v1Only ?? `v${cli.protocol}`}`);
  console.log(`${deadlines}\n`);
  console.log(formatTable(results));
  console.log(`\n${summarize(results)}; ${summarizeLevels(results)}`);
  if (cli.json) {
    const report = {
      target: name,
      protocol: cli.protocol,
      ...(v1Only && { v1Only: results.find((r) => r.v1Only !== undefined)?.v1Only }),
      agentInfo: info ?? null,
      deadlineScale: cli.scale,
      timeouts,
      levels: countByLevel(results),
      results,
    };
    writeFileSync(cli.json, `${JSON.stringify(report, null, 2)}\n`);
  }
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}

/**
 * Runs the command line `argv` (the arguments after `conformance`) and returns its exit code; the agent's
 * environment takes from `parentEnv` only what `--pass-env` names.
 */
export async function runConformanceCli(
  argv: readonly string[],
  parentEnv: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  try {
    return await run(argv, parentEnv);
  } catch (e) {
    console.error(`conformance: ${(e as Error).message}`);
    return 2;
  }
}
