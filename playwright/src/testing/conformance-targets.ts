/**
 * The agents this repository runs the conformance suite against (e2e/conformance): the SDK example and our
 * agent with the harness's env contract, in record mode against the emulator and in replay mode.
 */

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentTarget, PrepareInput, TurnKind } from '@acp-snapshot/conformance';
import { plainTargetEnv } from '@acp-snapshot/conformance/testing';
import type { StreamChunk } from '@acp-snapshot/core';
import { startEmulator } from '@acp-snapshot/emulator';
import { buildHeader, finishChunk, makeRecords, serializeLog, textChunk } from '@acp-snapshot/session-log';
import { type AgentEnvInput, agentEnv } from '../process/agent-env.js';
import { REPO_ROOT } from '../scenario/corpus.js';
import { SDK_EXAMPLE_AGENT } from './sdk-example.js';

/** Our reference agent's bundle. */
const OUR_AGENT = join(REPO_ROOT, 'agent', 'dist', 'main.js');

/** The SDK 1.9 example agent, run as `node .../examples/agent.js`. */
export function sdkExampleTarget(): AgentTarget {
  return {
    name: 'sdk-1.9-example',
    command: process.execPath,
    args: [SDK_EXAMPLE_AGENT],
    prepare: async ({ root }) => ({ env: plainTargetEnv(root), dispose: async () => {} }),
  };
}

/** What the scripted model answers a simple turn with. */
const SIMPLE_TEXT = 'Hello from the conformance model.';

/** Emulator script entries that make a model behave as each kind of turn asks. */
const TURN_SCRIPTS: Record<TurnKind, unknown[]> = {
  simple: [{ reply: { text: SIMPLE_TEXT } }],
  // Streams a little text (a visible sign of progress), then stalls until the agent cancels the request.
  slow: [
    {
      fail: {
        kind: 'hang',
        afterChunks: 2,
        reply: { text: 'Counting slowly: one, two, three, four, five.' },
      },
    },
  ],
  permission: [
    {
      reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'conformance.txt', content: 'ok\n' } }] },
    },
    { reply: { text: 'The file is written.' } },
  ],
  file: [
    { reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] } },
    { reply: { text: 'The README is one line long.' } },
  ],
};

/** Emulator script entries for a check's turns, in order. */
function emulatorResponses(turns: readonly TurnKind[]): unknown[] {
  return turns.flatMap((kind) => TURN_SCRIPTS[kind]);
}

/**
 * Our agent in record mode against the model emulator (scripted per check), with the harness's env
 * contract: `node agent/dist/main.js --overlay agent/overlays/record.json`.
 */
export function ourAgentTarget(): AgentTarget {
  return {
    name: 'acp-snapshot-agent',
    command: process.execPath,
    args: [OUR_AGENT, '--overlay', join(REPO_ROOT, 'agent', 'overlays', 'record.json')],
    async prepare({ checkId, root, cwd, turns }: PrepareInput) {
      const emulator = await startEmulator({
        script: { description: `conformance check ${checkId}`, responses: emulatorResponses(turns) },
      });
      return {
        env: ourAgentEnv({ checkId, root, cwd }, 'record', {
          baseUrl: emulator.url,
          apiKey: 'sk-test-conformance',
        }),
        modelText: SIMPLE_TEXT,
        dispose: () => emulator.close(),
      };
    },
  };
}

/** replay.override.json calls that make the replayed model behave as each kind of turn asks (no emulator). */
const TURN_OVERRIDES: Record<TurnKind, unknown[]> = {
  simple: [{ kind: 'chunks', chunks: [textChunk(SIMPLE_TEXT), finishChunk('stop')] }],
  // Streams a little text, then never answers until the agent aborts the call (a cancelled turn).
  slow: [{ kind: 'hang', chunks: [textChunk('Counting slowly: one, '), textChunk('two, ')] }],
  permission: [
    {
      kind: 'chunks',
      chunks: [
        ...toolCallChunks('write_file', { path: 'conformance.txt', content: 'ok\n' }),
        finishChunk('tool_calls'),
      ],
    },
    { kind: 'chunks', chunks: [textChunk('The file is written.'), finishChunk('stop')] },
  ],
  file: [
    {
      kind: 'chunks',
      chunks: [...toolCallChunks('read_file', { path: 'README.md' }), finishChunk('tool_calls')],
    },
    { kind: 'chunks', chunks: [textChunk('The README is one line long.'), finishChunk('stop')] },
  ],
};

function toolCallChunks(name: string, args: Record<string, unknown>): StreamChunk[] {
  return [
    { type: 'tool_call_start', index: 0, id: 'call_0', name },
    { type: 'tool_call_args', index: 0, delta: JSON.stringify(args) },
  ];
}

/** The override calls for a check's turns, in order (served positionally, no request expectations). */
function overrideCalls(turns: readonly TurnKind[]): unknown[] {
  return turns.flatMap((kind) => TURN_OVERRIDES[kind]);
}

/**
 * Our agent with its replay overlay (`agent/overlays/replay.json`), keyless and without any model: the
 * check's turns are served by llm-replay from a replay.override.json written per check, next to a
 * header-only fixture (the overlay requires one).
 */
export function ourAgentReplayTarget(): AgentTarget {
  return {
    name: 'acp-snapshot-agent (replay)',
    command: process.execPath,
    args: [OUR_AGENT, '--overlay', join(REPO_ROOT, 'agent', 'overlays', 'replay.json')],
    async prepare({ checkId, root, cwd, turns }: PrepareInput) {
      const fixture = join(root, 'session.jsonl');
      writeFileSync(fixture, serializeLog(makeRecords([buildHeader({ cwd: '{{cwd}}' })])));
      let override: string | undefined;
      if (turns.length > 0) {
        override = join(root, 'replay.override.json');
        const description = `conformance check ${checkId}`;
        writeFileSync(override, JSON.stringify({ description, calls: overrideCalls(turns) }, null, 2));
      }
      const env = ourAgentEnv({ checkId, root, cwd }, 'replay', {
        fixture,
        ...(override ? { override } : {}),
      });
      return { env, modelText: SIMPLE_TEXT, dispose: async () => {} };
    },
  };
}

/**
 * The harness's env contract for our agent in one check (`agentEnv`): a workspace with a
 * README to read, and fresh persistence, spill and home directories under the check's root.
 */
function ourAgentEnv(
  { checkId, root, cwd }: Pick<PrepareInput, 'checkId' | 'root' | 'cwd'>,
  mode: AgentEnvInput['mode'],
  extra: Pick<AgentEnvInput, 'fixture' | 'override' | 'baseUrl' | 'apiKey'>,
): Record<string, string> {
  writeFileSync(join(cwd, 'README.md'), 'A workspace for the ACP conformance suite.\n');
  const persistRoot = join(root, 'persist');
  const spillRoot = join(root, 'spill');
  const home = join(root, 'home');
  for (const d of [persistRoot, spillRoot, home]) mkdirSync(d, { recursive: true });
  return agentEnv({ mode, scenario: `conformance-${checkId}`, persistRoot, spillRoot, home, ...extra });
}

/** True when our agent's bundle exists (it is built by `npm run build`). */
export function ourAgentBuilt(): boolean {
  return existsSync(OUR_AGENT);
}
