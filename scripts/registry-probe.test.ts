// The registry smoke run: its rows say what an agent's probe showed and what a profile must add, read from the
// steps' exit codes and error texts; a real probe of the ACP SDK's example agent installs it from a local
// directory (no registry), runs the kit and the starter on it and leaves no process behind.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import {
  firstWriteOnly,
  parseTargets,
  probe,
  probeTable,
  registryAgents,
  rowOf,
  // @ts-expect-error: a plain .mjs script without type declarations
} from './registry-probe.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pass = (id: string, detail = 'ok') => ({ id, status: 'pass', detail });
const INIT_OK = [
  pass('initialize.version-echo'),
  pass('initialize.capabilities'),
  pass('initialize.agent-info'),
];
const installed = { ok: true, version: '1.2.3', name: 'some-agent' };

test('a package npm does not have is an install that a profile cannot fix', () => {
  const row = rowOf({
    id: 'junie-acp',
    package: '@jetbrains/junie-cli',
    install: {
      ok: false,
      error: 'npm error code E404\nnpm error 404 Not Found - GET .../@jetbrains%2fjunie-cli',
    },
  });
  expect(row).toMatchObject({
    installs: 'no',
    starts: '—',
    starter: '—',
    lacked: 'an npm package: not published',
  });
});

test('an agent that exits at start names what it wanted: a login, start arguments', () => {
  const exited = (text: string) =>
    rowOf({
      id: 'a',
      package: 'a',
      install: installed,
      checks: [
        {
          id: 'initialize.version-echo',
          status: 'fail',
          detail: 'the agent exited (code 1) before answering',
          transcript: `# a\n## stderr\nstarting a 1.2.3\n${text}\n## exit: code 1`,
        },
      ],
    });
  const login = exited('Error: Not logged in. Run `a login` or set A_API_KEY.');
  expect(login).toMatchObject({ installs: '1.2.3', starts: 'no', protocol: '—' });
  expect(login.lacked).toBe(
    'a login or key before initialize (Error: Not logged in. Run `a login` or set A_API_KEY.)',
  );
  expect(exited("error: unknown option '--acp'").lacked).toBe(
    "a start command (error: unknown option '--acp')",
  );
});

test('session/new refused for want of a login or of a model setting says so; v2 answered 2 is shown', () => {
  const refused = (error: string) =>
    rowOf({
      id: 'a',
      package: 'a',
      install: installed,
      checks: [
        ...INIT_OK,
        { id: 'session.new-unique', status: 'fail', detail: `session/new failed: ${error}` },
      ],
      v2: { answered: true, protocolVersion: 2 },
    });
  const auth = refused('{"code":-32000,"message":"Authentication required"}');
  expect(auth).toMatchObject({ starts: 'yes', protocol: 'v1 + v2', sessionNew: 'no' });
  expect(auth.lacked).toBe('a login or key before session/new (Authentication required)');
  const slow = rowOf({
    id: 'a',
    package: 'a',
    install: installed,
    checks: [
      {
        id: 'initialize.version-echo',
        status: 'fail',
        detail: 'WaitError: the response to initialize (id 1) did not arrive within 30000 ms',
      },
      ...INIT_OK.slice(1),
      {
        id: 'session.new-unique',
        status: 'fail',
        detail: 'session/new failed: {"code":-32000,"message":"Authentication required"}',
      },
    ],
  });
  expect(slow).toMatchObject({ starts: 'yes', sessionNew: 'no', lacked: auth.lacked });
  expect(slow.protocol).toMatch(/^v1 ✗ \(WaitError: the response to initialize \(id 1\) did not arrive/);
  expect(
    refused(
      '{"code":-32603,"message":"Internal error: Could not start pi: executable not found (command: pi)."}',
    ).lacked,
  ).toBe(
    'another executable on PATH (Internal error: Could not start pi: executable not found (command: pi).)',
  );
  expect(refused('{"code":-32603,"message":"No base URL for the provider"}').lacked).toMatch(
    /^a model base URL setting before session\/new/,
  );
});

test('a starter whose replay differs needs normalize rules; a green one needs nothing', () => {
  const base = {
    id: 'a',
    package: 'a',
    install: installed,
    checks: [...INIT_OK, pass('session.new-unique')],
  };
  const volatile = rowOf({
    ...base,
    v2: { answered: true, protocolVersion: 1 },
    starter: { ok: false, phase: 'replay', error: 'stdout.jsonl: the snapshot differs at /result/sessionId' },
  });
  expect(volatile).toMatchObject({ protocol: 'v1 (asked 2: 1)', sessionNew: 'yes', starter: 'red' });
  expect(volatile.lacked).toMatch(/^normalize rules/);
  const lingering = rowOf({
    ...base,
    starter: {
      ok: false,
      phase: 'write',
      error:
        'Error: problem: agent process 1 did not exit within 5000 ms after stdin closed; its process group was killed',
    },
  });
  expect(lingering.lacked).toBe("`exit: 'signal'` (it did not exit within 5000 ms of stdin closing)");
  const green = rowOf({ ...base, v2: { answered: false, error: 'exit 1' }, starter: { ok: true } });
  expect(green).toMatchObject({ protocol: 'v1 (asked 2: no answer)', starter: 'green', lacked: '' });
  expect(probeTable([green]).split('\n')[2]).toBe(
    '| a | a | 1.2.3 | yes | v1 (asked 2: no answer) | yes | green | nothing |',
  );
});

test("a starter's first run that only wrote its snapshots is not a failure; anything else is", () => {
  const written = 'x/stdout.jsonl: no snapshot yet; written: review it, commit it, and run again.';
  expect(firstWriteOnly(`Error: ${written}\n${written}`)).toBe(true);
  expect(firstWriteOnly(`${written}\nError: the agent exited with code 1`)).toBe(false);
  expect(firstWriteOnly('')).toBe(false);
});

test('targets: a registry id or package, @VERSION pins it, --all is every entry, a local directory takes --start', () => {
  const list = registryAgents();
  expect(list.registry.commit).toMatch(/^[0-9a-f]{40}$/);
  const { targets } = parseTargets(['qwen-code', 'opencode-ai@1.18.33', 'left-pad-agent'], list);
  expect(targets.map((t: { spec: string }) => t.spec)).toEqual([
    '@qwen-code/qwen-code',
    'opencode-ai@1.18.33',
    'left-pad-agent',
  ]);
  expect(targets[1]).toMatchObject({ id: 'opencode', bin: 'opencode', args: ['acp'] });
  expect(parseTargets(['--all'], list).targets).toHaveLength(list.agents.length);
  const local = parseTargets(['--start', 'node {{pkgDir}}/x.js', ROOT], list).targets[0];
  expect(local).toMatchObject({ local: true, start: ['node', '{{pkgDir}}/x.js'] });
  expect(() => parseTargets([], list)).toThrow(/no agent named/);
});

test('a real probe: the SDK example agent, installed from its directory offline, starts and its starter is green', async () => {
  test.setTimeout(180_000);
  const dir = join(ROOT, 'node_modules/acp-sdk-example');
  const [target] = parseTargets(['--start', 'node {{pkgDir}}/dist/examples/agent.js', dir]).targets;
  const r = await probe(target);
  expect(r.install).toMatchObject({ ok: true, name: '@agentclientprotocol/sdk' });
  expect(r.install.version).toBe(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version);
  expect(rowOf(r)).toMatchObject({
    starts: 'yes',
    protocol: 'v1 (asked 2: 1)',
    sessionNew: 'yes',
    starter: 'green',
    lacked: '',
  });
  // Every process of the probe is gone, and so is its scratch project.
  const pids = r.checks.flatMap((c: { pids?: number[] }) => c.pids ?? []);
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) expect(existsSync(`/proc/${pid}`)).toBe(false);
  expect(existsSync(r.scratch)).toBe(false);
});
