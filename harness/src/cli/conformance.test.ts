// The `npm run conformance -- CMD [ARGS...]` command line: prints the result table, exit code 1 on failures.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

const FAKE = 'harness/src/conformance/fakes/fake-agent.mjs';

function runCli(args: string[], env: Record<string, string> = {}) {
  // The fake agent keeps its sessions under HOME: give it a scratch one.
  const home = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  return execa(process.execPath, ['--import', 'tsx', 'harness/src/cli/conformance.ts', ...args], {
    env: { ...env, HOME: home },
    reject: false,
    timeout: 60_000,
  });
}

test('prints a passing table and exits 0 for a conforming agent', async () => {
  const r = await runCli(['--only', 'initialize.version-echo,jsonrpc.unknown-method', 'node', FAKE]);
  expect(r.stderr).toContain(
    'ACP conformance: 2 checks against node harness/src/conformance/fakes/fake-agent.mjs',
  );
  expect(r.stdout).toContain('| check | requirement | result | detail |');
  expect(r.stdout).toMatch(/\| `initialize.version-echo` \| .* \| pass \| protocolVersion 1 \|/);
  expect(r.stdout).toContain('2 checks: 2 pass, 0 fail, 0 skip');
  expect(r.exitCode).toBe(0);
});

test('exits 1 and names the failure when a check fails', async () => {
  const r = await runCli(['--only', 'transport.ndjson', 'node', FAKE], { FAKE_FLAW: 'stdout-noise' });
  expect(r.stdout).toMatch(/\| `transport.ndjson` \| .* \| fail \| stdout line 1: the line is not JSON/);
  expect(r.stdout).toContain('1 checks: 0 pass, 1 fail, 0 skip');
  expect(r.exitCode).toBe(1);
});

test('a usage error exits 2 with the usage line', async () => {
  const r = await runCli(['--only', 'no.such-check', 'node', FAKE]);
  expect(r.stderr).toMatch(/conformance: no conformance check "no.such-check"; known: transport.ndjson, /);
  expect(r.exitCode).toBe(2);
  const none = await runCli([]);
  expect(none.stderr).toContain('no agent command given\nusage: npm run conformance --');
  expect(none.exitCode).toBe(2);
});
