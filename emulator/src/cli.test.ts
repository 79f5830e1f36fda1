// The command line: `npm run emulator -- SCRIPT.json [--port N]`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { dataChunks, rawPost } from './testing/raw-http.js';

const CLI = ['--import', 'tsx', fileURLToPath(new URL('./cli.ts', import.meta.url))];
/** The repository root, where `tsx` resolves (as under `npm run emulator`). */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function writeScript(value: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'emu-cli-')), 'script.json');
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

test('prints the base URL on stdout line 1, serves the script, logs to stderr and stops on SIGTERM', async () => {
  const file = writeScript({ responses: [{ reply: { text: 'from the cli' } }] });
  const child = execa(process.execPath, [...CLI, file], { reject: false, cwd: ROOT });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.then((r) =>
      reject(new Error(`the emulator exited (${r.exitCode}) before printing its URL: ${r.stderr}`)),
    );
  });
  expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const res = await rawPost(`${firstLine}/chat/completions`, { model: 'm', stream: true, messages: [] });
  expect(
    dataChunks(res.text)
      .map((c) => c.choices[0]?.delta?.content ?? '')
      .join(''),
  ).toBe('from the cli');
  child.kill('SIGTERM');
  const result = await child;
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toBe(firstLine);
  expect(result.stderr).toContain('#0 POST /chat/completions -> response 0: reply (stream)');
});

test('a bad script exits 2 with the file and JSON path on stderr', async () => {
  const file = writeScript({ responses: [{ fail: { kind: 'http' } }] });
  const result = await execa(process.execPath, [...CLI, file], { reject: false, cwd: ROOT });
  expect(result.exitCode).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(file);
  expect(result.stderr).toContain('responses[0].fail.status');
});

test('missing arguments and a bad --port explain the usage', async () => {
  const none = await execa(process.execPath, CLI, { reject: false, cwd: ROOT });
  expect(none.exitCode).toBe(2);
  expect(none.stderr).toContain('usage: npm run emulator -- SCRIPT.json [--port N]');
  const badPort = await execa(process.execPath, [...CLI, 'x.json', '--port', 'abc'], {
    reject: false,
    cwd: ROOT,
  });
  expect(badPort.exitCode).toBe(2);
  expect(badPort.stderr).toContain('--port needs a port number');
});
