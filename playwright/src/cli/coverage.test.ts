/**
 * `acp-snapshot coverage` as a user runs it, on wires a real agent put down: our agent's session surface
 * (it calls no model for it), kept as the fixtures keep every test's, in two "shards" merged by naming both.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { writeTestWire } from '../coverage/coverage-records.js';
import { AcpClient } from '../driver/acp-client.js';
import { agentEnv } from '../driver/driver.js';
import { REPO_ROOT } from '../scenario/corpus.js';

const CLI = join(REPO_ROOT, 'playwright/dist/cli.js');
const ours = [
  process.execPath,
  join(REPO_ROOT, 'agent/dist/main.js'),
  '--overlay',
  join(REPO_ROOT, 'agent/overlays/replay.json'),
];

function cli(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [CLI, 'coverage', ...args], { cwd }, (e, out, err) =>
      resolve({ code: e ? Number(e.code ?? 1) : 0, out, err }),
    ),
  );
}

/** Runs our agent through `act` and keeps its wire under `outputDir` as the test `title` of project `ours`. */
async function keepWire(
  outputDir: string,
  title: string,
  act: (acp: AcpClient) => Promise<void>,
): Promise<void> {
  const cwd = await mkdtemp(join(tmpdir(), 'acp-cov-'));
  const acp = new AcpClient({
    command: ours,
    cwd,
    env: agentEnv({
      mode: 'replay',
      scenario: title,
      home: cwd,
      persistRoot: join(cwd, '.persist'),
      spillRoot: join(cwd, '.spill'),
      // Its replay overlay needs a recording to serve; these sessions make no model call.
      fixture: join(REPO_ROOT, 'fixtures/scenarios/no-model/session.jsonl'),
    }),
  });
  try {
    await act(acp);
  } finally {
    await acp.dispose();
    await rm(cwd, { recursive: true, force: true });
  }
  writeTestWire(
    {
      project: { name: 'ours', outputDir } as never,
      titlePath: ['a.spec.ts', title],
      testId: title,
      repeatEachIndex: 0,
      retry: 0,
    },
    acp.sent,
    acp.stdout,
  );
}

test('coverage of two shards: gaps first, merged counts, JSON and HTML written, --fail-on-gap exits 1', async () => {
  const work = await mkdtemp(join(tmpdir(), 'acp-cov-cli-'));
  try {
    const shard1 = join(work, 'shard-1');
    const shard2 = join(work, 'shard-2');
    await keepWire(shard1, 'sets a mode', async (acp) => {
      await acp.initialize();
      await acp.newSession();
      await acp.setMode('auto');
    });
    await keepWire(shard2, 'lists and closes', async (acp) => {
      await acp.initialize();
      await acp.newSession();
      await acp.listSessions();
      await acp.closeSession();
    });

    const r = await cli([shard1, shard2, '--json', 'c.json', '--html', 'c.html'], work);
    expect(r.code, r.err).toBe(0);
    const out = r.out;
    expect(out).toMatch(/^acp-snapshot coverage: ours \(acp-snapshot-agent [\d.]+\), 2 test\(s\)/);
    // Never loaded, resumed or deleted, never a prompt: the gaps come before any count.
    expect(out).toContain('✗ declared `loadSession`, never loaded');
    expect(out).toContain('✗ declared `sessionCapabilities.resume`, never called `session/resume`');
    expect(out).not.toContain('never called `session/list`');
    expect(out).not.toContain('never called `session/close`');
    expect(out.indexOf('declared but never exercised')).toBeLessThan(out.indexOf('client → agent requests'));
    expect(out).toMatch(
      /initialize → ok\s+2 test\(s\): a\.spec\.ts › lists and closes; a\.spec\.ts › sets a mode/,
    );
    expect(out).toMatch(/session\/set_mode → ok\s+1 test\(s\): a\.spec\.ts › sets a mode/);
    const json = JSON.parse(await readFile(join(work, 'c.json'), 'utf8'));
    expect(json.projects[0].gaps.map((g: { declared: string }) => g.declared)).toContain('loadSession');
    expect(await readFile(join(work, 'c.html'), 'utf8')).toContain('<code>loadSession</code>');

    const gate = await cli([shard1, shard2, '--fail-on-gap'], work);
    expect(gate.code).toBe(1);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});

test('no wire, a missing directory and a bad option each say what to do, exit 2', async () => {
  // Four runs of the CLI, each a Node start: on a busy two-core machine that passes the default 30 s.
  test.setTimeout(90_000);
  const work = await mkdtemp(join(tmpdir(), 'acp-cov-cli-'));
  try {
    const missing = await cli([], work);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(
      'coverage: no such directory: test-results (run the tests first: npx playwright test',
    );
    const bad = await cli(['--frobnicate'], work);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('coverage: unknown option --frobnicate');
    expect(bad.err).toContain('usage: acp-snapshot coverage');
    const empty = await cli(['.'], work);
    expect(empty.code).toBe(2);
    expect(empty.err).toContain('no test wire under .');
    // A results directory whose wires a later run cleared still holds the json reporter's report.
    await mkdir(join(work, 'test-results'));
    await writeFile(join(work, 'test-results/report.json'), '{"suites":[]}');
    const cleared = await cli([], work);
    expect(cleared.code).toBe(2);
    expect(cleared.err).toContain('no test wire under test-results: run the tests first');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});

/** A wire file as a test keeps it: JSON-RPC lines of one agent process, both directions. */
async function plantWire(dir: string, name: string, sent: unknown[], received: unknown[]): Promise<void> {
  await mkdir(join(dir, 'acp-wires'), { recursive: true });
  const lines = (ms: unknown[]) => ms.map((m) => ({ text: JSON.stringify(m), process: 0 }));
  await writeFile(
    join(dir, 'acp-wires', `${name}-0-0.json`),
    JSON.stringify({
      project: 'planted',
      test: `planted.spec.ts › ${name}`,
      sent: lines(sent),
      received: lines(received),
    }),
  );
}

test('--fail-on-gap fails a planted corpus that never exercises one declared capability, and passes once a test does', async () => {
  const work = await mkdtemp(join(tmpdir(), 'acp-cov-planted-'));
  try {
    // The agent declares load and list; one test lists sessions filtered by its cwd, none loads.
    const init = [{ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }];
    const initOk = {
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: 1,
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
        agentInfo: { name: 'planted-agent', version: '0.0.1' },
      },
    };
    const newSession = {
      jsonrpc: '2.0',
      id: 1,
      method: 'session/new',
      params: { cwd: '/w', mcpServers: [] },
    };
    const newOk = { jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } };
    await plantWire(
      work,
      'lists',
      [...init, newSession, { jsonrpc: '2.0', id: 2, method: 'session/list', params: { cwd: '/w' } }],
      [initOk, newOk, { jsonrpc: '2.0', id: 2, result: { sessions: [{ sessionId: 's1', cwd: '/w' }] } }],
    );
    const red = await cli(['.', '--fail-on-gap'], work);
    expect(red.code, red.out + red.err).toBe(1);
    expect(red.out).toContain('declared but never exercised (1):');
    expect(red.out).toContain('✗ declared `loadSession`, never loaded (no session/load answered ok)');

    await plantWire(
      work,
      'loads',
      [
        ...init,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'session/load',
          params: { sessionId: 's0', cwd: '/w', mcpServers: [] },
        },
      ],
      [initOk, { jsonrpc: '2.0', id: 1, result: {} }],
    );
    const green = await cli(['.', '--fail-on-gap'], work);
    expect(green.code, green.out + green.err).toBe(0);
    expect(green.out).toContain('every declared capability, mode and config option was exercised');
    expect(green.out).toMatch(/session\/load → ok\s+1 test\(s\): planted\.spec\.ts › loads/);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
