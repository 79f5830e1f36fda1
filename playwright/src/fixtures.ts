/**
 * The Playwright fixtures, one concern each: a worker-scoped base directory; the test's roots (cwd with
 * the workspace seed, persist, spill, HOME); the agent (its profile resolved into a command line and a
 * scrubbed environment); the model side (where the agent's model answers come from); and `acp`, a
 * connected ACP driver. Options (`agentProfile`, `workspaceSeed`, `model`) are set per project.
 */

import { mkdir, mkdtemp, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { projectTestsCommand } from '@acp-snapshot/core';
import type { ModelFault } from '@acp-snapshot/model-http';
import type * as acp from '@agentclientprotocol/sdk';
import { test as base, type TestInfo } from '@playwright/test';
import { replayDrift, replayErrors } from './compare/replay-report.js';
import { noteTestCause, writeTestWire } from './coverage/coverage-records.js';
import { AcpClient } from './driver/acp-client.js';
import { callerLocation } from './driver/caller-location.js';
import type { LeftTerminal } from './driver/client-terminals.js';
import { agentEnv } from './driver/driver.js';
import { protocolLine } from './driver/protocol-v2.js';
import { McpTestServers } from './mcp/mcp-servers.js';
import type { McpTestServerSpec } from './mcp/mcp-spec.js';
import {
  type HttpModel,
  type HttpModelSource,
  recordModeOf,
  startHttpModel,
  withModelBaseUrl,
  withModelServer,
} from './model/http-model.js';
import { resolveAgentCommand } from './process/agent-command.js';
import type { AgentProfile } from './profile.js';
import { type CauseProject, driftCause } from './report/causes.js';
import { attachConversation } from './report/conversation.js';
import { agentRoots, createTestRoots, installDir, rootMap, type TestRoots } from './roots/roots.js';
import { RunDirs, settleTestDirs } from './roots/run-dirs.js';

/** Where the agent's model answers come from. */
export type ModelSource =
  /** The test makes no model call (or the agent needs none). */
  | { kind: 'none' }
  /** Answers replayed from a recorded session log (agents that load the llm-replay plugin). */
  | { kind: 'replay'; log: string; sidecars?: string; override?: string }
  /** A real model: the base URL and key come from the environment the tests run in, never from a file. */
  | { kind: 'live'; baseUrlEnv?: string; apiKeyEnv?: string }
  /** Any agent: its model calls recorded and replayed at the HTTP level (the profile points it at {{modelBaseUrl}}). */
  | HttpModelSource;

/** Options a project sets (`use: { agentProfile, ... }`). */
export interface AcpOptions {
  agentProfile: AgentProfile;
  /** A directory copied into the session cwd before the agent starts. */
  workspaceSeed: string | undefined;
  model: ModelSource;
  /**
   * Provider faults for the HTTP model (`model.kind: 'http'`), by name, each in place of the call it matches,
   * in record and replay: `test.use({ modelFaults: { 'rate limited': { kind: 'status', status: 429, call: 1 } } })`.
   * An object, not a list: `test.use` reads `[a, b]` as a value and its fixture options. More from the test
   * body with `httpModel.fault(...)`. A fault that never fires fails the test, named.
   */
  modelFaults: Record<string, ModelFault>;
  /**
   * The client offers terminals (`terminal: true` in initialize): the agent's terminal/create commands run as
   * real processes in the session cwd with the test's environment (`test.use({ terminal: true })`).
   */
  terminal: boolean;
  /**
   * Extensions the client declares in its capabilities' `_meta` at initialize, as an editor does: Zed's
   * `{ terminal_output: true }` asks agents to show the commands they run themselves as terminals in their
   * tool calls (`test.use({ clientMeta: { terminal_output: true } })`). Default: none.
   */
  clientMeta: Record<string, unknown> | undefined;
  /**
   * Test MCP servers attached to every session/new (`test.use({ mcpServers: [{ name, tools }] })`): each a
   * stdio server the agent starts (or, with `transport: 'http'`, one the harness starts and the agent reaches
   * by URL), offering the declared tools with scripted answers; what it saw is the
   * `mcp.jsonl` snapshot surface. More from the test body: `acp.newSession({ mcpServers: [await acp.mcp.attach(spec)] })`.
   */
  mcpServers: McpTestServerSpec[];
  /**
   * The ACP version initialize asks for: 1, 2, or 'highest' (asks for 2, continues on the version the agent
   * answers; the report says which). Default: the profile's `protocolVersion`, else 1.
   */
  protocolVersion: 1 | 2 | 'highest' | undefined;
}

/** The agent as the test runs it. */
export interface ResolvedAgent {
  command: string[];
  env: Record<string, string>;
  profile: AgentProfile;
}

export interface AcpFixtures {
  /** The test's isolated directories: removed when it passes, kept and named in the report when it fails. */
  roots: TestRoots;
  agent: ResolvedAgent;
  /** The test's HTTP model server (model kind `http`), else undefined; judged when the test ends. */
  httpModel: HttpModel | undefined;
  /** A driver connected to the agent over stdio (the process starts at the first request). */
  acp: AcpClient;
}

export interface AcpWorkerFixtures {
  /** This worker's base directory; every test's roots are created inside it; removed at the end unless it keeps some. */
  acpBaseDir: string;
}

/** A test's exchange log: the model's own, or the one beside the test's snapshots. */
function exchangesPath(model: HttpModelSource, testInfo: TestInfo): string {
  return model.exchanges ?? testInfo.snapshotPath(testDirName(testInfo.title), 'exchanges.jsonl');
}

/** The user's project: the directory of the Playwright config (where a profile's relative paths start). */
function configDir(testInfo: TestInfo): string {
  return testInfo.config.configFile ? dirname(testInfo.config.configFile) : testInfo.config.rootDir;
}

/** A profile's command line as it runs: its relative paths start at the config's directory. */
function agentCommandLine(command: readonly string[], testInfo: TestInfo): string[] {
  return resolveAgentCommand(command, configDir(testInfo));
}
export const test = base.extend<AcpOptions & AcpFixtures, AcpWorkerFixtures>({
  agentProfile: [{ command: [] }, { option: true }],
  workspaceSeed: [undefined, { option: true }],
  model: [{ kind: 'none' }, { option: true }],
  modelFaults: [{}, { option: true }],
  terminal: [false, { option: true }],
  clientMeta: [undefined, { option: true }],
  mcpServers: [[], { option: true }],
  protocolVersion: [undefined, { option: true }],

  acpBaseDir: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
    async ({}, use, workerInfo) => {
      // A fixed-length name per worker: paths keep their length between runs (output budgets count them).
      const dir = await mkdtemp(join('/tmp', `acp-w${workerInfo.parallelIndex % 10}-`));
      await use(dir);
      // Only the roots of failed tests are left in it (kept for inspection, named in their reports):
      // they outlive the worker, so the directory goes only when it is empty.
      await rmdir(dir).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') throw e;
      });
    },
    { scope: 'worker' },
  ],

  httpModel: async ({ model, modelFaults, roots, agentProfile }, use, testInfo) => {
    const faults = Object.entries(modelFaults).map(([name, fault]) => ({ ...fault, name }));
    if (model.kind !== 'http') {
      if (faults.length)
        throw new Error(
          `modelFaults: faults are served by the HTTP model server, and this test's model is kind '${model.kind}': set use.model = { kind: 'http', ... } (our agent's llm-replay scenarios script failures in replay.override.json)`,
        );
      return use(undefined);
    }
    const exchanges = exchangesPath(model, testInfo);
    // The profile's volatile request fields, then the test's own.
    const ids = [...(agentProfile.requestIds ?? []), ...(model.ids ?? [])];
    const server = await startHttpModel(
      { ...model, exchanges, ...(ids.length > 0 ? { ids } : {}) },
      rootMap(roots),
      recordHint(testInfo),
      process.env,
      faults,
    );
    await use(server);
    // A test that skipped itself (test.skip in its body, e.g. on a protocol version it cannot run on) is not
    // judged: its faults never fired, its recording was not used, and no log is written for it.
    if (testInfo.status === 'skipped') {
      await server.verdict();
      return;
    }
    // A drifted replay's cause, keyed by the change: one prompt edit that breaks many tests is one cause in the
    // run's "failures by cause" (the coverage teardown), with the command that re-records them. Only a failing
    // test has a cause: a test that judged the verdict itself (a drift on purpose) and passed has none.
    const drift = server.replayDrift();
    const noteDrift = () => {
      if (drift) noteTestCause(testInfo, { ...driftCause(drift), project: causeProject(testInfo, model) });
    };
    const failed = testInfo.status !== testInfo.expectedStatus;
    if (failed) noteDrift();
    let summary: string | undefined;
    try {
      summary = await server.finish();
    } catch (e) {
      // The verdict fails a test that passed so far: the drift is why.
      if (!failed) noteDrift();
      throw e;
    }
    // The record summary: what the recording did to the test's exchange log, in the run's output and report.
    if (summary) {
      console.log(summary);
      testInfo.annotations.push({ type: 'model exchanges', description: summary });
    }
  },

  roots: async ({ acpBaseDir, workspaceSeed, agentProfile, model }, use, testInfo) => {
    const dirs = new RunDirs();
    // The command as it will run (`./node_modules/.bin/qwen` is the project's): its install directory and the
    // project's are roots, so a checkout at another path replays what this one recorded.
    const install = installDir(agentCommandLine(agentProfile.command, testInfo));
    const roots = await createTestRoots(testInfo.titlePath.join(' › '), {
      base: acpBaseDir,
      ...(workspaceSeed ? { seedDir: resolve(workspaceSeed) } : {}),
      ...(install ? { install } : {}),
      project: configDir(testInfo),
      ...(model.kind === 'http' && recordModeOf(model) === 'none'
        ? { replaying: exchangesPath(model, testInfo) }
        : {}),
    });
    dirs.track(roots);
    await use(roots);
    await settleTestDirs(dirs, testInfo);
  },

  agent: async ({ agentProfile, roots, model, httpModel }, use, testInfo) => {
    if (agentProfile.command.length === 0)
      throw new Error(
        'no agent: set use.agentProfile = { command: [...] } in playwright.config.ts (or pass profiles to defineAcpConfig)',
      );
    const env = {
      ...agentEnv({
        mode: model.kind === 'live' || model.kind === 'http' ? 'record' : 'replay',
        scenario: testInfo.title,
        persistRoot: roots.persistRoot,
        spillRoot: roots.spillRoot,
        home: roots.home,
        tmp: roots.tmp,
        roots: agentRoots(roots),
        ...modelEnv(model),
      }),
      ...Object.fromEntries(
        Object.entries(agentProfile.env ?? {}).map(([k, v]) => [k, withModelBaseUrl(v, httpModel?.url)]),
      ),
    };
    for (const [path, content] of Object.entries(agentProfile.home ?? {})) {
      const file = join(roots.home, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, withModelBaseUrl(content, httpModel?.url));
    }
    await use({ command: agentCommandLine(agentProfile.command, testInfo), env, profile: agentProfile });
  },

  acp: async (
    { agent, roots, workspaceSeed, model, httpModel, terminal, clientMeta, mcpServers, protocolVersion },
    use,
    testInfo,
  ) => {
    const mcp = new McpTestServers(join(roots.root, 'mcp'));
    const mcpEntries: acp.McpServer[] = [];
    try {
      for (const spec of mcpServers) mcpEntries.push(await mcp.attach(spec));
    } catch (e) {
      // An HTTP server already started for this test goes with the one that failed.
      await mcp.dispose();
      throw e;
    }
    const client: AcpClient = new AcpClient({
      snapshot: {
        roots: httpModel ? withModelServer(roots, httpModel.url) : roots,
        profile: agent.profile,
        replayed: model.kind === 'replay',
        recording: httpModel !== undefined && httpModel.record !== 'none',
        updating: ['all', 'changed'].includes(testInfo.config.updateSnapshots),
        ...(httpModel && {
          modelReplayFailure: () => httpModel.replayFailure(),
          awaitingModelCalls: () => httpModel.awaitingCalls(),
        }),
        // The replay plugin's failures (its lines on the agent's stderr): a drifted replay is reported as such,
        // not as the snapshot differences that follow from it.
        ...(model.kind === 'replay' && {
          modelReplayFailure: (): string | undefined => pluginReplayFailure(client.stderr),
        }),
        ...(model.kind !== 'live' && {
          expectedStdout: testInfo.snapshotPath(testDirName(testInfo.title), 'stdout.jsonl'),
        }),
        ...(workspaceSeed ? { workspaceSeed: resolve(workspaceSeed) } : {}),
      },
      command: agent.command,
      env: agent.env,
      cwd: roots.cwd,
      ...(agent.profile.clientCapabilities ? { clientCapabilities: agent.profile.clientCapabilities } : {}),
      ...(terminal ? { terminal } : {}),
      ...(clientMeta ? { clientMeta } : {}),
      mcp,
      ...(mcpEntries.length > 0 ? { mcpServers: mcpEntries } : {}),
      ...(agent.profile.exitGraceMs !== undefined ? { exitGraceMs: agent.profile.exitGraceMs } : {}),
      ...(agent.profile.exit ? { exit: agent.profile.exit } : {}),
      protocolVersion: protocolVersion ?? agent.profile.protocolVersion ?? 1,
      // Each step opens the spec's line that made the call (else the test's own line).
      step: (title, body) =>
        test.step(title, body, {
          location: callerLocation(testInfo.file) ?? {
            file: testInfo.file,
            line: testInfo.line,
            column: testInfo.column,
          },
        }),
    });
    await use(client);
    // Which ACP version the run spoke, when the test asked for v2: the report's line for an agent answering 1.
    if (client.negotiation)
      testInfo.annotations.push({ type: 'acp protocol', description: protocolLine(client.negotiation) });
    const failed = testInfo.status !== testInfo.expectedStatus;
    const leftTerminals = await client.dispose();
    // A drift the replay plugin reported as data: the failure's cause, keyed by the change itself.
    const drift = failed && model.kind === 'replay' ? replayDrift(client.stderr) : undefined;
    if (drift) noteTestCause(testInfo, { ...driftCause(drift), project: causeProject(testInfo, model) });
    writeTestWire(testInfo, client.sent, client.stdout, mcp.any ? await mcp.traffic() : undefined);
    // toMatchAcpSnapshot attached the side-by-side view when the wire differed from its snapshot.
    if (!testInfo.attachments.some((a) => a.name === 'conversation.html'))
      await attachConversation(testInfo, {
        actual: client.stdout.map((l) => l.text).join('\n'),
        sent: client.sent.map((l) => l.text),
      });
    // Prompts answered while no request reached the model server: the agent talks to a model the harness
    // does not see, and its recording would replay only while that model is there.
    if (httpModel && httpModel.calls === 0 && client.promptsSent > 0 && testInfo.status === 'passed')
      throw new Error(
        `model: the agent was sent ${client.promptsSent} prompt(s) and made no model request through the harness's model server (${httpModel.url}). ` +
          "Point its model at {{modelBaseUrl}} in the profile's env or HOME files; a test whose prompts need no model sets use.model = { kind: 'none' }.",
      );
    if (failed) {
      await testInfo.attach('stdout.raw.jsonl', {
        body: client.stdout.map((l) => l.text).join('\n'),
        contentType: 'application/jsonl',
      });
      if (mcp.any)
        await testInfo.attach('mcp-traffic.jsonl', {
          body: (await mcp.traffic()).map((l) => JSON.stringify(l)).join('\n'),
          contentType: 'application/jsonl',
        });
      await testInfo.attach('stderr.txt', {
        body: client.stderr.map((s, i) => `--- agent process ${i + 1} ---\n${s}`).join('\n'),
        contentType: 'text/plain',
      });
    }
    await reportMcpCrashes(mcp, testInfo);
    reportLeftTerminals(leftTerminals, testInfo);
  },
});

/**
 * The test MCP servers that died: each named in the report with its stderr; one that crashed on its own (not
 * by its script) fails the test.
 */
async function reportMcpCrashes(mcp: McpTestServers, testInfo: TestInfo): Promise<void> {
  const crashes = await mcp.crashes();
  for (const c of crashes) testInfo.annotations.push({ type: 'MCP server crash', description: c.message });
  const faults = crashes.filter((c) => !c.scripted);
  if (faults.length > 0) throw new Error(faults.map((c) => c.message).join('\n'));
}

/**
 * The terminals the agent left at the end of the test, killed and released by the client: each is named in
 * the report; a command still running then (one that never exits, stopped by the test's timeout) fails the
 * test with its command line, as a process left behind does.
 */
function reportLeftTerminals(left: readonly LeftTerminal[], testInfo: TestInfo): void {
  for (const l of left) testInfo.annotations.push({ type: 'client terminal', description: l.message });
  const running = left.filter((l) => l.running);
  if (running.length > 0) throw new Error(`client terminals: ${running.map((l) => l.message).join('\n')}`);
}

/** A test title as a directory name: `a prompt ends the turn` → `a-prompt-ends-the-turn`. */
export function testDirName(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '') || 'acp'
  );
}

/** The project that re-records a test's model calls: its project's `:record` twin, when the config has one. */
function recordTwin(info: TestInfo): string | undefined {
  const name = info.project.name;
  const twin = name.endsWith(':record') ? name : `${name}:record`;
  return info.config.projects.some((p) => p.name === twin) ? twin : undefined;
}

/** The command that re-records a test's model calls: its project's `:record` twin when the config has one. */
function recordHint(info: TestInfo): string {
  const grep = `'${info.title}'`;
  const twin = recordTwin(info);
  if (twin)
    return `${projectTestsCommand(twin, grep)} (with the upstream's URL and key in the environment; ACP_SNAPSHOT_RECORD_MODE=missing in front sends only the requests that no longer match)`;
  return `set use.model.record = 'missing' (or 'all') and its upstream for this test, then run: ${projectTestsCommand(info.project.name || undefined, grep)}`;
}

/** What the replay plugin reported it could not serve (drift, an exhausted script), or undefined. */
function pluginReplayFailure(stderr: readonly string[]): string | undefined {
  const errors = replayErrors(stderr);
  return errors.length > 0 ? errors.join('\n') : undefined;
}

/** The project a cause of this test was seen in, for the command that accepts it in the run's summary. */
export function causeProject(info: TestInfo, model?: ModelSource): CauseProject {
  const twin = recordTwin(info);
  return {
    name: info.project.name,
    ...(twin ? { record: twin } : {}),
    ...(model ? { model: model.kind } : {}),
  };
}

/** The contract variables of a model source; a live source reads its key from the environment. */
function modelEnv(model: ModelSource): {
  fixture?: string;
  sidecars?: string;
  override?: string;
  baseUrl?: string;
  apiKey?: string;
} {
  if (model.kind === 'replay') {
    return {
      fixture: resolve(model.log),
      ...(model.sidecars ? { sidecars: resolve(model.sidecars) } : {}),
      ...(model.override ? { override: resolve(model.override) } : {}),
    };
  }
  if (model.kind === 'live') {
    const keyName = model.apiKeyEnv ?? 'DEEPSEEK_API_KEY';
    const apiKey = process.env[keyName];
    if (!apiKey)
      throw new Error(
        `model: live needs a key; export ${keyName}=... (it is passed to the agent, never stored)`,
      );
    const baseUrl = model.baseUrlEnv ? process.env[model.baseUrlEnv] : process.env.ACP_SNAPSHOT_BASE_URL;
    return { apiKey, ...(baseUrl ? { baseUrl } : {}) };
  }
  return {};
}
