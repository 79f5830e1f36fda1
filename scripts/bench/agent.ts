// Agent cold start: spawn to initialize response, against `node -e 0` and against the SDK floor (a minimal
// agent on the same SDK, bundled the same way), interleaved, median of RUNS.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHeader, serializeLog } from '@acp-snapshot/session-log';
import { median, writeResults } from './_results.js';

const RUNS = 15;

function timeBareNode(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - t0));
  });
}

const AGENT = ['agent/dist/main.js', '--overlay', 'agent/overlays/replay.json'];
/** A minimal agent on the same SDK, bundled the same way (scripts/bench/sdk-floor/agent.ts, by scripts/build.mjs). */
const SDK_FLOOR = ['scripts/bench/sdk-floor/dist/agent.js'];

/** Spawns an agent (`args` to node), sends initialize, resolves when its response line arrives. */
function timeAgentInitialize(env: NodeJS.ProcessEnv, args = AGENT): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!out.includes('"id":1'))
        reject(new Error(`agent exited (${code}) before answering initialize:\n${err}`));
    });
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n') && out.includes('"id":1')) {
        const ms = performance.now() - t0;
        child.stdin.end();
        child.kill();
        resolve(ms);
      }
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
    );
  });
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acp-bench-agent-'));
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    ACP_SNAPSHOT_MODE: 'replay',
    ACP_SNAPSHOT_SCENARIO: 'bench',
    ACP_SNAPSHOT_FIXTURE: join(dir, 'none.jsonl'),
    ACP_SNAPSHOT_PERSIST_ROOT: join(dir, 'persist'),
    ACP_SNAPSHOT_SPILL_ROOT: join(dir, 'spill'),
  };
  // The replay plugin reads its fixture at start-up: give it a header-only log (a scenario with no model call).
  writeFileSync(env.ACP_SNAPSHOT_FIXTURE, serializeLog([{ event: buildHeader() }]));
  if (!existsSync(SDK_FLOOR[0]!))
    throw new Error(`bench agent: ${SDK_FLOOR[0]} is missing; run \`npm run build\``);
  // One warm-up of each so the OS file cache is in the same state for all three.
  await timeBareNode();
  await timeAgentInitialize(env);
  await timeAgentInitialize(env, SDK_FLOOR);
  const agent: number[] = [];
  const bare: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await timeBareNode());
    agent.push(await timeAgentInitialize(env));
    floor.push(await timeAgentInitialize(env, SDK_FLOOR));
  }
  const ms = (values: number[]) => Math.round(median(values) * 10) / 10;
  const agentColdStartMs = ms(agent);
  const nodeBareStartMs = ms(bare);
  const sdkFloorMs = ms(floor);
  writeResults('agent', {
    agentColdStartMs,
    nodeBareStartMs,
    coldStartRatio: Math.round((agentColdStartMs / nodeBareStartMs) * 100) / 100,
    sdkFloorMs,
    coldStartVsSdkFloor: Math.round((agentColdStartMs / sdkFloorMs) * 100) / 100,
  });
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
