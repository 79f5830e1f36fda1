// `npm run bench -- user`: the harness where a user meets it: a scratch project outside the repository with the
// packed harness installed as the README says (playwright/src/testing/packed-harness.ts), against a bare Playwright project beside it
// (same Playwright, same agent, same number of tests, no harness). One worker each, so worker start-up is not
// hidden behind a second worker.
// - workerStartMs / workerStartFloorMs: what a test that starts in a fresh worker waits for it (every test of a
//   red run does: Playwright replaces a failed test's worker), harness project / bare project.
// - perTestOverheadMs: median over the green run of a test's duration minus its agent process's own life
//   (the agent writes its start, from `performance.timeOrigin`, and its exit time).
// - redRunRatio / redRunFloorRatio: red wall ÷ green wall, harness project / bare project (red: the agent's
//   answer changed, so every snapshot, or the bare test's expect, fails).
// - modelServerMsPerExchange4k / 80k: the HTTP model server in replay (normalize, fingerprint, match, serve a
//   62-frame answer) minus a bare server streaming the same frames, per sequential request, for a 4 KB and an
//   ~80 KB (qwen-sized) Chat Completions body; firstFrameAddedMs: the same difference to the first frame (80 KB).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Exchange, frameBytes, startModelServer } from '@acp-snapshot/model-http';
import { largeChatRequest, startFakeUpstream } from '@acp-snapshot/model-http/testing';
import { packedProject } from '@acp-snapshot/playwright/testing';
import { median, writeResults } from './_results.js';
import { directServer, latency, timedPost } from './model-http.js';
import { freshWorkerGaps, type JsonResult, projectResults, reportResults } from './suite.js';

const TESTS = 8;

/** An ACP agent with no model: answers a prompt with the text of reply.txt beside it; logs its own life. */
const AGENT = `import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const here = new URL('.', import.meta.url).pathname;
const reply = readFileSync(here + 'reply.txt', 'utf8');
process.on('exit', () => appendFileSync(here + 'life.log', performance.timeOrigin + ' ' + Date.now() + '\\n'));
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  if (msg.method === 'initialize')
    return send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  if (msg.method === 'session/new') return send({ id: msg.id, result: { sessionId: 'sess-1' } });
  if (msg.method === 'session/prompt') {
    const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: reply } };
    send({ method: 'session/update', params: { sessionId: msg.params.sessionId, update } });
    return send({ id: msg.id, result: { stopReason: 'end_turn' } });
  }
  send({ id: msg.id, error: { code: -32601, message: 'Method not found: ' + msg.method } });
});
`;

const HARNESS_CONFIG = `import { defineAcpConfig } from '@acp-snapshot/playwright';
export default defineAcpConfig({
  agents: { tiny: { command: ['node', ${JSON.stringify('AGENT_PATH')}] } },
  playwright: { workers: 1, retries: 0 },
});
`;

const harnessSpec = (i: number) => `import { expect, test } from '@acp-snapshot/playwright';
test('answers ${i}', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = await acp.prompt('Say hello.');
  expect(turn.stopReason).toBe('end_turn');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
`;

/** The same exchange by hand: spawn the agent, three requests over stdio, compare the answer. */
const bareSpec = (i: number) => `import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { expect, test } from '@playwright/test';
test('answers ${i}', async () => {
  const child = spawn('node', [${JSON.stringify('AGENT_PATH')}], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const call = async (id, method, params) => {
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\\n');
    const seen = [];
    for (;;) {
      const msg = JSON.parse((await lines.next()).value);
      if (msg.id === id) return { result: msg.result, seen };
      seen.push(msg);
    }
  };
  await call(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await call(2, 'session/new', { cwd: process.cwd(), mcpServers: [] });
  const turn = await call(3, 'session/prompt', { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'Say hello.' }] });
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
  expect(turn.result.stopReason).toBe('end_turn');
  expect(turn.seen[0].params.update.content.text).toBe('Hello from the tiny agent.');
});
`;

interface ProjectRun {
  wallMs: number;
  status: number | null;
  results: JsonResult[];
}

/** One `playwright test` in `dir`; the results of `project` (the harness's agent project), or of every test. */
function runPlaywright(dir: string, project?: string, args: string[] = []): ProjectRun {
  const report = join(dir, 'report.json');
  rmSync(report, { force: true });
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [join(dir, 'node_modules/@playwright/test/cli.js'), 'test', '--workers=1', '--reporter=json', ...args],
    {
      cwd: dir,
      env: { ...process.env, CI: '', FORCE_COLOR: '0', PLAYWRIGHT_JSON_OUTPUT_NAME: report },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const wallMs = Date.now() - started;
  return {
    wallMs,
    status: r.status,
    results: project ? projectResults(report, project) : reportResults(report),
  };
}

/** A project at `dir` with the agent and TESTS spec files; `bare`: plain @playwright/test, no harness config. */
async function writeProject(dir: string, bare: boolean): Promise<void> {
  await packedProject(dir);
  mkdirSync(join(dir, 'agent'), { recursive: true });
  mkdirSync(join(dir, 'tests'), { recursive: true });
  const agentPath = join(dir, 'agent/main.mjs');
  writeFileSync(agentPath, AGENT);
  writeFileSync(join(dir, 'agent/reply.txt'), 'Hello from the tiny agent.');
  const fill = (text: string) => text.replaceAll(JSON.stringify('AGENT_PATH'), JSON.stringify(agentPath));
  writeFileSync(
    join(dir, 'playwright.config.ts'),
    bare
      ? "import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: 'tests', workers: 1, retries: 0 });\n"
      : fill(HARNESS_CONFIG),
  );
  for (let i = 0; i < TESTS; i++)
    writeFileSync(join(dir, `tests/t${i}.spec.ts`), fill((bare ? bareSpec : harnessSpec)(i)));
}

/** Agent lives (exit - start, ms) in the order the agent processes exited, and the log emptied. */
function agentLives(dir: string): number[] {
  const file = join(dir, 'agent/life.log');
  const lives = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const [start, end] = l.split(' ').map(Number);
      return end! - start!;
    });
  rmSync(file);
  return lives;
}

function setReply(dir: string, text: string): void {
  writeFileSync(join(dir, 'agent/reply.txt'), text);
}

/** Green and red walls of a project, its red run's fresh-worker gaps, and its green run's per-test overhead. */
function measureProject(dir: string, label: string, project?: string) {
  const green = runPlaywright(dir, project);
  if (green.status !== 0 || green.results.length !== TESTS)
    throw new Error(`bench user: the ${label} project's green run failed (exit ${green.status}) in ${dir}`);
  const lives = agentLives(dir);
  setReply(dir, 'Hello from a changed agent.');
  const red = runPlaywright(dir, project);
  setReply(dir, 'Hello from the tiny agent.');
  const failed = red.results.filter((r) => r.status !== 'passed').length;
  if (failed !== TESTS)
    throw new Error(`bench user: the ${label} red run failed ${failed} of ${TESTS} tests`);
  agentLives(dir);
  // One agent per test, one worker: the tests ran in the order their agents exited.
  const byStart = [...green.results].sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
  const overheads = byStart.map((r, i) => r.duration - lives[i]!);
  return {
    greenWall: green.wallMs,
    redWall: red.wallMs,
    workerStart: median(freshWorkerGaps(red.results)),
    overhead: median(overheads),
  };
}

/** Per sequential request, the replay server minus a bare server streaming the same frames (to end, to first). */
async function modelServerCost(body: string): Promise<{ perExchange: number; firstFrame: number }> {
  const cwd = '/tmp/acp-user-bench0000/work';
  const path = '/v1/chat/completions';
  const up = await startFakeUpstream({ deltas: Array.from({ length: 60 }, (_, i) => `token ${i} `) });
  const rec = await startModelServer({
    mode: 'record',
    upstream: { baseUrl: up.url },
    normalize: { roots: { cwd } },
  });
  await timedPost(rec.url, path, body);
  await rec.close();
  await up.close();
  const N = 200;
  const exchanges: Exchange[] = Array.from({ length: 3 * (N + 20) }, () => rec.exchanges[0]!);
  const direct = await directServer(exchanges[0]!.response.frames.map((f) => frameBytes(f)));
  const rep = await startModelServer({ mode: 'replay', exchanges, normalize: { roots: { cwd } } });
  const ends: number[] = [];
  const firsts: number[] = [];
  // Interleaved, so load on the machine hits both alike.
  for (let run = 0; run < 3; run++) {
    const d = await latency(direct.url, path, body, N / 4);
    const r = await latency(rep.url, path, body, N / 4);
    ends.push(r - d);
    const df = await latency(direct.url, path, body, N / 4, true);
    const rf = await latency(rep.url, path, body, N / 4, true);
    firsts.push(rf - df);
  }
  await rep.close();
  await direct.close();
  return { perExchange: median(ends), firstFrame: median(firsts) };
}

/** A ~4 KB Chat Completions body: a short system prompt, a few turns quoting the cwd. */
function smallBody(cwd: string): string {
  const messages = [{ role: 'system', content: `You are a coding agent. Working directory: ${cwd}.` }];
  for (let i = 0; JSON.stringify(messages).length < 3900; i++)
    messages.push({
      role: i % 2 ? 'assistant' : 'user',
      content: `Step ${i}: read ${cwd}/src/module-${i}.ts and fix it.`,
    });
  return JSON.stringify({ model: 'm', stream: true, messages });
}

export async function run(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-user-'));
  try {
    const harness = join(root, 'harness-project');
    const bare = join(root, 'bare-project');
    await writeProject(harness, false);
    await writeProject(bare, true);
    // The first harness run writes the snapshots (an update run, as with toMatchSnapshot); not measured.
    runPlaywright(harness, 'tiny', ['--update-snapshots']);
    agentLives(harness);
    const h = measureProject(harness, 'harness', 'tiny');
    const b = measureProject(bare, 'bare');
    const cwd = '/tmp/acp-user-bench0000/work';
    const small = await modelServerCost(smallBody(cwd));
    const large = await modelServerCost(
      JSON.stringify({ ...largeChatRequest(cwd, 'Tuesday, December 1, 2026').body, stream: true }),
    );
    const ms = (n: number) => Number(n.toFixed(3));
    writeResults('user', {
      tests: TESTS,
      workerStartMs: h.workerStart,
      workerStartFloorMs: b.workerStart,
      perTestOverheadMs: h.overhead,
      bareTestOverheadMs: b.overhead,
      redRunRatio: ms(h.redWall / h.greenWall),
      redRunFloorRatio: ms(b.redWall / b.greenWall),
      greenWallMs: h.greenWall,
      greenWallFloorMs: b.greenWall,
      modelServerMsPerExchange4k: ms(small.perExchange),
      modelServerMsPerExchange80k: ms(large.perExchange),
      firstFrameAddedMs: ms(large.firstFrame),
    });
    console.log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
