// Agent cold start: spawn to initialize response, against `node -e 0`, interleaved, median of RUNS.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** Spawns the agent with the replay overlay, sends initialize, resolves when its response line arrives. */
function timeAgentInitialize(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['agent/dist/main.js', '--overlay', 'agent/overlays/replay.json'], {
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
  // One warm-up of each so the OS file cache is in the same state for both.
  await timeBareNode();
  await timeAgentInitialize(env);
  const agent: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await timeBareNode());
    agent.push(await timeAgentInitialize(env));
  }
  const agentColdStartMs = Math.round(median(agent) * 10) / 10;
  const nodeBareStartMs = Math.round(median(bare) * 10) / 10;
  writeResults('agent', {
    agentColdStartMs,
    nodeBareStartMs,
    coldStartRatio: Math.round((agentColdStartMs / nodeBareStartMs) * 100) / 100,
  });
}
