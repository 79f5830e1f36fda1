import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { isLoopback, recordTarget, scrubSecrets, writeScenarioFixtures } from './record-gate.js';

test('record needs a key or a base URL, and says how to give one', () => {
  expect(() => recordTarget({})).toThrow(
    /^record mode needs a model\. Set DEEPSEEK_API_KEY=\.\.\. \(DeepSeek\), or ACP_SNAPSHOT_BASE_URL=/,
  );
  expect(recordTarget({ DEEPSEEK_API_KEY: 'sk-abc' })).toEqual({ kind: 'deepseek', apiKey: 'sk-abc' });
  expect(recordTarget({ ACP_SNAPSHOT_BASE_URL: 'emulator' })).toEqual({
    kind: 'emulator',
    apiKey: 'local-no-key',
  });
  expect(recordTarget({ ACP_SNAPSHOT_BASE_URL: 'http://127.0.0.1:8080/v1' })).toEqual({
    kind: 'server',
    baseUrl: 'http://127.0.0.1:8080/v1',
    apiKey: 'local-no-key',
  });
  expect(() => recordTarget({ ACP_SNAPSHOT_BASE_URL: 'ftp://x' })).toThrow(
    'ACP_SNAPSHOT_BASE_URL must be an http(s) URL or "emulator", got "ftp://x"',
  );
});

test('CI refuses recording unless the base URL is loopback', () => {
  expect(() => recordTarget({ CI: '1', DEEPSEEK_API_KEY: 'sk-abc' })).toThrow(
    'record mode is refused when CI is set: it would call a real model. Record on a developer machine, or point ACP_SNAPSHOT_BASE_URL at a loopback server (or "emulator").',
  );
  expect(() => recordTarget({ CI: '1', ACP_SNAPSHOT_BASE_URL: 'https://api.example.invalid/v1' })).toThrow(
    /refused when CI is set: it would call a real model at https:\/\/api\.example\.invalid\/v1/,
  );
  expect(recordTarget({ CI: '1', ACP_SNAPSHOT_BASE_URL: 'http://localhost:1234' }).kind).toBe('server');
  expect(recordTarget({ CI: '1', ACP_SNAPSHOT_BASE_URL: 'emulator' }).kind).toBe('emulator');
  expect(isLoopback('http://[::1]:80/')).toBe(true);
  expect(isLoopback('http://10.0.0.1/')).toBe(false);
});

test('scrubbing removes keys, tokens, the home directory and the user name', () => {
  const text =
    'key sk-live-0123456789abcdefXYZ and raw s3cr3t-value, "Authorization": "Bearer abcdefghijkl", home /home/alice/x, alice wrote; /home/alicex stays';
  expect(scrubSecrets(text, { values: ['s3cr3t-value'], home: '/home/alice', user: 'alice' })).toBe(
    'key sk-[redacted] and raw [redacted-key], "Authorization": "[redacted]", home {{realHome}}/x, {{user}} wrote; /home/alicex stays',
  );
  expect(scrubSecrets('the root of it', { values: [], user: 'root' })).toBe('the root of it');
});

test('fixtures are written scrubbed, sidecars once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'record-test-'));
  try {
    const w = {
      dir: join(dir, 'scenarios', 's'),
      sidecarsDir: join(dir, 'sidecars'),
      sessionText: '{"cwd":"/home/alice/p"}\n',
      stdoutText: '{"k":"sk-0123456789abcdef0123"}\n',
      workspaceText:
        '{\n  "files": [\n    {\n      "path": "a.txt",\n      "change": "added",\n      "kind": "text",\n      "lines": [\n        "/home/alice/x"\n      ]\n    }\n  ]\n}\n',
      sidecars: { ['a'.repeat(64)]: '{"prompt":"hi"}\n' },
    };
    const secrets = { values: [], home: '/home/alice', user: 'alice' };
    expect(await writeScenarioFixtures(w, secrets)).toEqual([
      join(dir, 'sidecars', `${'a'.repeat(64)}.json`),
    ]);
    expect(await writeScenarioFixtures(w, secrets)).toEqual([]);
    expect(await readFile(join(w.dir, 'session.jsonl'), 'utf8')).toBe('{"cwd":"{{realHome}}/p"}\n');
    expect(await readFile(join(w.dir, 'stdout.expected.jsonl'), 'utf8')).toBe('{"k":"sk-[redacted]"}\n');
    expect(await readFile(join(w.dir, 'workspace.expected.json'), 'utf8')).toBe(
      w.workspaceText.replace('/home/alice', '{{realHome}}'),
    );
    expect(await readdir(w.sidecarsDir)).toEqual([`${'a'.repeat(64)}.json`]);
    await expect(
      writeScenarioFixtures({ ...w, sidecars: { ['b'.repeat(64)]: 'prompt for alice' } }, secrets),
    ).rejects.toThrow(`sidecar ${'b'.repeat(64)} holds a secret`);
  } finally {
    await rm(dir, { recursive: true });
  }
});
