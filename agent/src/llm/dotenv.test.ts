import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { DotEnvError, loadDotEnv, parseDotEnv } from './dotenv.js';

test('parses plain, exported, quoted and commented values', () => {
  const text = [
    '# a comment',
    '',
    'DEEPSEEK_API_KEY=sk-abc123',
    'export BASE_URL = http://127.0.0.1:8080  # trailing comment',
    "SINGLE='literal \\n $HOME # not a comment'",
    'DOUBLE="line1\\nline2 \\"quoted\\""',
    'MULTI="first',
    'second"',
    'EMPTY=',
    'HASH_IN_VALUE=abc#def',
  ].join('\r\n');
  expect(parseDotEnv(text)).toEqual({
    DEEPSEEK_API_KEY: 'sk-abc123',
    BASE_URL: 'http://127.0.0.1:8080',
    SINGLE: 'literal \\n $HOME # not a comment',
    DOUBLE: 'line1\nline2 "quoted"',
    MULTI: 'first\nsecond',
    EMPTY: '',
    HASH_IN_VALUE: 'abc#def',
  });
});

test('a bad line or an unclosed quote names file:line', () => {
  expect(() => parseDotEnv('OK=1\nnot a pair\n', '/p/.env')).toThrow(/^\/p\/\.env:2: expected KEY=value/);
  expect(() => parseDotEnv('A=1\nB="open\nC=2', '/p/.env')).toThrow(
    /\/p\/\.env:2: B: the " quote is never closed/,
  );
  expect(() => parseDotEnv('A="x" y', 'f')).toThrow(DotEnvError);
});

test('loadDotEnv reads a file, and a missing file is an empty result', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
  writeFileSync(join(dir, '.env'), 'DEEPSEEK_API_KEY=sk-file\n');
  expect(await loadDotEnv(join(dir, '.env'))).toEqual({ DEEPSEEK_API_KEY: 'sk-file' });
  expect(await loadDotEnv(join(dir, 'missing.env'))).toEqual({});
  writeFileSync(join(dir, 'bom.env'), '\ufeffDEEPSEEK_API_KEY=sk-bom\n');
  expect(await loadDotEnv(join(dir, 'bom.env'))).toEqual({ DEEPSEEK_API_KEY: 'sk-bom' });
  writeFileSync(join(dir, 'latin1.env'), Buffer.from('A=1\nB=caf\xe9\n', 'latin1'));
  await expect(loadDotEnv(join(dir, 'latin1.env'))).rejects.toThrow(
    new DotEnvError(
      `${join(dir, 'latin1.env')}:2: not valid UTF-8 (byte 0xe9 at column 6); save the file as UTF-8`,
    ),
  );
});
