// `acp-snapshot conformance` (`npm run conformance -- CMD [ARGS...]`): prints the report, exit code 1 on failures.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

const FAKE = 'conformance/src/testing/fake-agent.mjs';
const FAKE_V2 = 'conformance/src/testing/fake-agent-v2.mjs';

// Each run of the command line starts tsx and compiles the schema (seconds on a loaded 2-core machine).
test.describe.configure({ timeout: 120_000 });

function runCli(args: string[], env: Record<string, string> = {}) {
  // The CLI's own HOME: the agent must never see it (each check gets a fresh one).
  const home = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  return execa(process.execPath, ['--import', 'tsx', 'playwright/src/cli/conformance.ts', ...args], {
    env: { ...env, HOME: home },
    reject: false,
    timeout: 60_000,
  });
}

function writeProfile(profile: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'conformance-profile-')), 'profile.json');
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

test('prints a passing report and exits 0 for a conforming agent', async () => {
  const r = await runCli(['--only', 'initialize.version-echo,jsonrpc.unknown-method', 'node', FAKE]);
  expect(r.stderr).toContain(
    'ACP conformance (v1): 2 checks against node conformance/src/testing/fake-agent.mjs',
  );
  expect(r.stdout).toContain('agent: fake-agent 1.0.0\n');
  expect(r.stdout).toContain(
    'deadline scale 1 (request 10000 ms, turn 30000 ms, exit 5000 ms, progress 5000 ms)',
  );
  expect(r.stdout).toContain('| check | requirement | result | detail |');
  expect(r.stdout).toMatch(/\| `initialize.version-echo` \| .* \| pass \| protocolVersion 1 \|/);
  expect(r.stdout).toContain(
    '2 checks: 2 pass, 0 fail, 0 skip; mandatory 2/2, capability 0 pass / 0 fail / 0 skip, advisory 0/0',
  );
  expect(r.exitCode).toBe(0);
});

test('exits 1 and names the failure when a check fails; the agent sees only declared variables', async () => {
  const only = ['--only', 'transport.ndjson'];
  const r = await runCli([...only, '--env', 'FAKE_FLAW=stdout-noise', 'node', FAKE]);
  expect(r.stdout).toMatch(/\| `transport.ndjson` \| .* \| fail \| stdout line 1: the line is not JSON/);
  expect(r.stdout).toContain('1 checks: 0 pass, 1 fail, 0 skip');
  expect(r.exitCode).toBe(1);
  // The same flaw in the shell's environment does not reach the agent...
  const inherited = await runCli([...only, 'node', FAKE], { FAKE_FLAW: 'stdout-noise' });
  expect(inherited.stdout).toContain('1 checks: 1 pass, 0 fail, 0 skip');
  // ...unless the command line passes it on by name.
  const passed = await runCli([...only, '--pass-env', 'FAKE_FLAW', 'node', FAKE], {
    FAKE_FLAW: 'stdout-noise',
  });
  expect(passed.exitCode).toBe(1);
});

test('--deadline-scale and ACP_CONFORMANCE_DEADLINE_SCALE multiply every deadline, and the report says so', async () => {
  const profile = writeProfile({ command: ['node', FAKE], env: { FAKE_FLAW: 'no-exit' }, exitGraceMs: 200 });
  const args = ['--only', 'lifecycle.exit-on-stdin-close', '--json'];
  const json = join(tmpdir(), `conformance-${process.pid}-scale.json`);
  const flag = await runCli([...args, json, '--deadline-scale', '2', '--profile', profile]);
  expect(flag.stdout).toContain(
    'deadline scale 2 (request 20000 ms, turn 60000 ms, exit 400 ms, progress 10000 ms)',
  );
  expect(flag.stdout).toMatch(/\| fail \| still running 400 ms after stdin closed \(killed\) \|/);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  expect(report).toMatchObject({
    deadlineScale: 2,
    timeouts: { request: 20000, turn: 60000, exit: 400, progress: 10000 },
    agentInfo: { name: 'fake-agent', version: '1.0.0' },
    levels: { advisory: { pass: 0, fail: 1, skip: 0 } },
  });
  expect(report.results[0]).toMatchObject({ id: 'lifecycle.exit-on-stdin-close', status: 'fail' });
  const env = await runCli([...args, json, '--profile', profile], { ACP_CONFORMANCE_DEADLINE_SCALE: '1.5' });
  expect(env.stdout).toContain('deadline scale 1.5 (request 15000 ms, turn 45000 ms, exit 300 ms');
  expect(env.stdout).toContain('still running 300 ms after stdin closed');
});

test('a usage error exits 2 with the reason', async () => {
  const profile = writeProfile({ command: 'node agent.js' });
  const [r, none, scale, badEnv, bad] = await Promise.all([
    runCli(['--only', 'no.such-check', 'node', FAKE]),
    runCli([]),
    runCli(['--deadline-scale', 'fast', 'node', FAKE]),
    runCli(['node', FAKE], { ACP_CONFORMANCE_DEADLINE_SCALE: '0' }),
    runCli(['--profile', profile]),
  ]);
  expect(r.stderr).toMatch(/conformance: no conformance check "no.such-check"; known: transport.ndjson, /);
  expect(r.exitCode).toBe(2);
  expect(none.stderr).toContain('no agent command given\nusage: npm run conformance --');
  expect(none.exitCode).toBe(2);
  expect(scale.stderr).toContain('conformance: --deadline-scale must be a positive number, got "fast"');
  expect(scale.exitCode).toBe(2);
  expect(badEnv.stderr).toContain('ACP_CONFORMANCE_DEADLINE_SCALE must be a positive number, got "0"');
  expect(bad.stderr).toContain(`conformance: ${profile}: not an agent profile:\n  command: `);
  expect(bad.exitCode).toBe(2);
});

test('--protocol 2 runs the v2 checks, the negotiation first; a v2 fault fails the run', async () => {
  const only = ['--protocol', '2', '--only', 'v2.prompt-ack-idle,v2.upserts'];
  const r = await runCli([...only, 'node', FAKE_V2]);
  expect(r.stderr).toContain(
    'ACP conformance (v2): 3 checks against node conformance/src/testing/fake-agent-v2.mjs',
  );
  expect(r.stdout).toContain('agent: fake-agent-v2 0.0.1\nprotocol: v2\n');
  expect(r.stdout).toMatch(/\| `v2.negotiation` \| .* \| pass \| protocolVersion 2; info /);
  expect(r.stdout).toMatch(
    /\| `v2.prompt-ack-idle` \| .* \| pass \| acknowledged \{"messageId":"user-\d+-\d+"\}; idle stopReason end_turn \|/,
  );
  expect(r.stdout).toContain('3 checks: 3 pass, 0 fail, 0 skip');
  expect(r.exitCode).toBe(0);
  const bad = await runCli([...only, '--env', 'FAKE_FLAW=chunk-no-message-id', 'node', FAKE_V2]);
  expect(bad.stdout).toMatch(
    /\| `v2.upserts` \| .* \| fail \| stdout line \d+: agent_message_chunk has messageId undefined, v2 requires one/,
  );
  expect(bad.exitCode).toBe(1);
});

test('--protocol 2 against a v1-only agent: reported v1-only with the version it answered, not failing', async () => {
  const json = join(mkdtempSync(join(tmpdir(), 'conformance-v1-only-')), 'out.json');
  const r = await runCli(['--protocol', '2', '--json', json, '--env', 'FAKE_FLAW=v1-only', 'node', FAKE_V2]);
  expect(r.stdout).toContain('protocol: v1-only (asked for protocolVersion 2, answered 1)\n');
  expect(r.stdout).toMatch(
    /\| `v2.session-resume` \| .* \| skip \| v1-only: asked for protocolVersion 2, the agent answered 1 \|/,
  );
  expect(r.stdout).toContain('11 checks: 0 pass, 0 fail, 11 skip');
  expect(r.exitCode).toBe(0);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  expect(report).toMatchObject({ protocol: 2, v1Only: 1 });
  expect(report.results.every((x: { v1Only?: unknown }) => x.v1Only === 1)).toBe(true);
  const bad = await runCli(['--protocol', '3', 'node', FAKE_V2]);
  expect(bad.stderr).toContain('conformance: --protocol takes 1 or 2, got "3"');
  expect(bad.exitCode).toBe(2);
  const unknown = await runCli(['--protocol', '2', '--only', 'prompt.cancel', 'node', FAKE_V2]);
  expect(unknown.stderr).toMatch(
    /no conformance check "prompt.cancel" in the v2 suite; known: v2.negotiation, /,
  );
  expect(unknown.exitCode).toBe(2);
});
