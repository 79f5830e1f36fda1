import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { CONTRACT_ENV, parseRootsEnv, type VolatileRoots } from '@acp-snapshot/core';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { agentProtocolRouter } from '@agentclientprotocol/sdk/experimental/v2';
import pkg from '../package.json' with { type: 'json' };
import { AcpAgent } from './acp-server.js';
import { v2App } from './acp-v2.js';
import {
  type AgentConfig,
  ConfigError,
  readConfigFile,
  resolveConfig,
  scenarioConfigSource,
} from './config.js';
import { loadDotEnv } from './llm/dotenv.js';
import { logLine } from './log.js';
import { deferredPlugin, loadLlmPlugin } from './plugin-loader.js';
import { createClock, createIds } from './seams.js';
import type { AgentServices } from './services.js';
import { SessionStore } from './session-store.js';
import { createTools } from './tools/index.js';

const USAGE = `usage: acp-snapshot-agent [--config PATH] [--overlay PATH]...

An ACP coding agent speaking JSON-RPC over stdio. --config replaces the base config
(default: agent/config.json); each --overlay is deep-merged over it in order. See agent/README.md.`;

/** Command-line options of the agent. */
interface CliArgs {
  config: string;
  overlays: string[];
}

function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { config: fileURLToPath(new URL('../config.json', import.meta.url)), overlays: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new ConfigError(`argument error: ${a} needs a path\n${USAGE}`);
      return v;
    };
    if (a === '--config') args.config = value();
    else if (a === '--overlay') args.overlays.push(value());
    else if (a.startsWith('--config=')) args.config = a.slice('--config='.length);
    else if (a.startsWith('--overlay=')) args.overlays.push(a.slice('--overlay='.length));
    else if (a === '--help' || a === '-h') {
      process.stderr.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a === '--version') {
      process.stderr.write(`${pkg.version}\n`);
      process.exit(0);
    } else throw new ConfigError(`argument error: unknown argument "${a}"\n${USAGE}`);
  }
  return args;
}

/**
 * The environment the LLM plugin sees. Live plugins (deepseek, openai-compatible) also get `.env` from the
 * process cwd, under the real environment (which wins); replay and custom modules never read `.env`, so a
 * stray key file cannot reach them.
 */
async function pluginEnv(llm: AgentConfig['llm']): Promise<Record<string, string | undefined>> {
  const live = !llm.module && (llm.plugin === 'deepseek' || llm.plugin === 'openai-compatible');
  if (!live) return process.env;
  try {
    return { ...(await loadDotEnv(resolve('.env'))), ...process.env };
  } catch (e) {
    throw new ConfigError(`config error: .env: ${(e as Error).message}`);
  }
}

/** The harness's volatile roots (a documented env contract); a malformed value is a config error. */
function rootsFromEnv(env: NodeJS.ProcessEnv): VolatileRoots {
  try {
    return parseRootsEnv(env[CONTRACT_ENV.roots]);
  } catch (e) {
    throw new ConfigError(`config error: ${(e as Error).message}`);
  }
}

async function main(): Promise<void> {
  // stdout is the ACP channel: anything a dependency prints with console.log goes to stderr instead.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  process.on('unhandledRejection', (e) => {
    logLine(`unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  });

  const args = parseArgs(process.argv.slice(2));
  const env = process.env;
  // A test harness's per-scenario config (ACP_SNAPSHOT_AGENT_CONFIG) is the last overlay.
  const scenario = scenarioConfigSource(env);
  const config = resolveConfig(
    [readConfigFile(args.config), ...args.overlays.map(readConfigFile), ...(scenario ? [scenario] : [])],
    env,
  );
  const clock = createClock(config.clock);
  const ids = createIds(config.ids);
  // config.tools carries the per-tool limits under the tools' names (tools.read_file, tools.grep...).
  const tools = createTools(config.tools);
  const toolEnv: Record<string, string | undefined> = {};
  for (const name of config.tools.envPassthrough) if (env[name] !== undefined) toolEnv[name] = env[name];
  Object.assign(toolEnv, config.tools.env);
  // Plugins prefix their own lines (the harness reads replay's `llm-replay: {...}` line as written).
  const pluginLog = (line: string) => process.stderr.write(`${line}\n`);
  // The plugin loads while the connection answers `initialize` (nothing before session/new needs it); a plugin
  // that fails to load still ends the process with its config error, as if it had failed first.
  const loading = pluginEnv(config.llm).then((pluginEnvVars) =>
    loadLlmPlugin(config.llm, pluginEnvVars, pluginLog),
  );
  loading.catch(fail);
  const plugin = deferredPlugin(loading, config.llm.module ?? config.llm.plugin);
  let toolSchemas: AgentServices['toolSchemas'] | undefined;
  const services: AgentServices = {
    config,
    plugin,
    tools,
    // On first use (session/new), like each tool's JSON Schema.
    get toolSchemas() {
      toolSchemas ??= tools.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
      }));
      return toolSchemas;
    },
    store: new SessionStore(config.persistRoot, config.persistenceCompression, clock, ids),
    clock,
    ids,
    toolEnv,
    home: env.HOME || homedir(),
    roots: rootsFromEnv(env),
    agentInfo: { name: 'acp-snapshot-agent', title: 'acp-snapshot reference agent', version: pkg.version },
    log: logLine,
  };
  const agent = new AcpAgent(services);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  // v1 and v2 on one stdio connection: the SDK's router picks by the version initialize asks for.
  const connection = agentProtocolRouter()
    .withV1(agent.app())
    .withV2(v2App(agent, services.agentInfo, ids))
    .connect(stream);

  let exitCode = 0;
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    shuttingDown ??= (async () => {
      logLine(`shutting down (${reason})`);
      await agent.close();
      try {
        await plugin.close?.();
      } catch (e) {
        logLine(`llm plugin "${plugin.name}" reported a problem at close: ${(e as Error).message}`);
        exitCode = 1;
      }
      process.exit(exitCode);
    })();
    return shuttingDown;
  };
  process.on('SIGTERM', () => {
    exitCode = 143;
    void shutdown('SIGTERM');
  });
  process.on('SIGINT', () => {
    exitCode = 130;
    void shutdown('SIGINT');
  });
  await connection.closed;
  await shutdown('stdin closed');
}

/** Ends the process on a start-up failure: a config error as its message, anything else with its stack. */
function fail(e: unknown): never {
  if (e instanceof ConfigError) process.stderr.write(`${e.message}\n`);
  else
    process.stderr.write(
      `acp-snapshot-agent: fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
  process.exit(1);
}

main().catch(fail);
