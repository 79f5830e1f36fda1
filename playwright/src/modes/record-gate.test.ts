import { expect, test } from '@playwright/test';
import { isLoopback, recordTarget } from './record-gate.js';

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
