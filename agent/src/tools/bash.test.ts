import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { createBash } from './bash.js';
import { isAlive, makeWorkspace, type Workspace } from './test-context.js';

let ws: Workspace;
test.beforeEach(async () => {
  ws = await makeWorkspace();
});
test.afterEach(async () => ws.dispose());

const tool = createBash();

async function pidIn(path: string): Promise<number> {
  await expect.poll(async () => existsSync(path) && (await readFile(path, 'utf8')).endsWith('\n')).toBe(true);
  return Number((await readFile(path, 'utf8')).trim());
}

test('runs in the cwd and reports output and exit code', async () => {
  const out = await tool.run({ command: 'pwd; echo hello' }, ws.ctx);
  expect(out.status).toBe('completed');
  expect(out.output).toBe(`${ws.cwd}\nhello\n[exit code: 0]`);
  expect(out.content).toEqual([{ type: 'content', content: { type: 'text', text: out.output } }]);
  expect(out.spill).toBeUndefined();
});

test('stdout and stderr are both in the output; a non-zero exit fails', async () => {
  const out = await tool.run({ command: 'echo to-out; echo to-err >&2; exit 3' }, ws.ctx);
  expect(out.status).toBe('failed');
  expect(out.output.split('\n').sort()).toEqual(['[exit code: 3]', 'to-err', 'to-out']);
  const silent = await tool.run({ command: 'true' }, ws.ctx);
  expect(silent.output).toBe('(no output)\n[exit code: 0]');
});

test('the environment is exactly ctx.env, in a non-login shell', async () => {
  process.env.ACP_TOOLS_TEST_SECRET = 'leaked';
  try {
    const ctx = { ...ws.ctx, env: { PATH: process.env.PATH, VISIBLE: 'yes', UNSET: undefined } };
    const out = await tool.run(
      {
        command:
          'echo "[$ACP_TOOLS_TEST_SECRET][$VISIBLE]"; printenv UNSET || echo unset; shopt -q login_shell && echo login || echo non-login',
      },
      ctx,
    );
    expect(out.output).toBe('[][yes]\nunset\nnon-login\n[exit code: 0]');
  } finally {
    delete process.env.ACP_TOOLS_TEST_SECRET;
  }
});

test('output over the budget is spilled in full; the preview is its head and names the file', async () => {
  const small = await makeWorkspace({ previewBudget: 300 });
  try {
    const out = await tool.run({ command: 'seq 1 2000' }, small.ctx);
    const full = `${Array.from({ length: 2000 }, (_, i) => i + 1).join('\n')}\n`;
    const path = `${small.spillRoot}/spill-1.txt`;
    expect(out.status).toBe('completed');
    expect(out.spill).toEqual({ path, bytes: Buffer.byteLength(full) });
    expect(await readFile(path, 'utf8')).toBe(full);
    expect(out.output.length).toBeLessThanOrEqual(300);
    const lines = out.output.split('\n');
    expect(lines.slice(0, 3)).toEqual(['1', '2', '3']);
    expect(lines.at(-2)).toBe('[exit code: 0]');
    expect(lines.at(-1)).toBe(
      `[output truncated: the full output (${full.length} bytes) is in ${path}; read it with read_file, using offset and limit for long files]`,
    );
    // The preview's head is an exact prefix of the full output, cut at a line end.
    const head = lines.slice(0, -2).join('\n');
    expect(full.startsWith(`${head}\n`)).toBe(true);
  } finally {
    await small.dispose();
  }
});

test('a timeout kills the whole process group and says so', async () => {
  const started = Date.now();
  const out = await tool.run(
    { command: 'echo started; sleep 30 & echo $! > child.pid; wait', timeout_ms: 500 },
    ws.ctx,
  );
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(out.status).toBe('failed');
  expect(out.output).toBe(
    'started\n[timed out after 500 ms: the command and its child processes were killed]',
  );
  const child = await pidIn(`${ws.cwd}/child.pid`);
  await expect.poll(() => isAlive(child)).toBe(false);
});

test('the context timeout applies when the call gives none', async () => {
  const out = await tool.run({ command: 'sleep 30' }, { ...ws.ctx, bashTimeoutMs: 300 });
  expect(out.output).toBe(
    '(no output)\n[timed out after 300 ms: the command and its child processes were killed]',
  );
});

test('abort kills the command and its children', async () => {
  const controller = new AbortController();
  const running = tool.run(
    { command: 'sleep 30 & echo $! > child.pid; wait' },
    { ...ws.ctx, signal: controller.signal },
  );
  const child = await pidIn(`${ws.cwd}/child.pid`);
  expect(isAlive(child)).toBe(true);
  controller.abort();
  const out = await running;
  expect(out.status).toBe('failed');
  expect(out.output).toBe('(no output)\n[cancelled: the command and its child processes were killed]');
  await expect.poll(() => isAlive(child)).toBe(false);
});

test('an already aborted signal does not start the command', async () => {
  const controller = new AbortController();
  controller.abort();
  const out = await tool.run({ command: 'touch ran' }, { ...ws.ctx, signal: controller.signal });
  expect(out).toMatchObject({ status: 'failed', output: 'Cancelled: the command was not started.' });
  expect(existsSync(`${ws.cwd}/ran`)).toBe(false);
});

test('background jobs end with the command instead of holding the call open', async () => {
  const out = await tool.run({ command: 'sleep 30 & echo $! > bg.pid; echo done' }, ws.ctx);
  expect(out).toMatchObject({ status: 'completed', output: 'done\n[exit code: 0]' });
  const bg = await pidIn(`${ws.cwd}/bg.pid`);
  await expect.poll(() => isAlive(bg)).toBe(false);
});

test('the orphan watchdog is invisible: $0, fd 3, wait, jobs and the exit status are a plain bash -c', async () => {
  const out = await tool.run(
    {
      command:
        'echo "$0"; [ -e /dev/fd/3 ] && echo fd3-open || echo fd3-closed; sleep 0.05 & wait; echo "jobs: $(jobs -p | wc -l)"; exit 4',
      timeout_ms: 10_000,
    },
    ws.ctx,
  );
  expect(out.output).toBe('/bin/bash\nfd3-closed\njobs: 0\n[exit code: 4]');
});

test('stdin is empty, so reading commands do not hang', async () => {
  const out = await tool.run({ command: 'cat; echo after' }, ws.ctx);
  expect(out.output).toBe('after\n[exit code: 0]');
});

test('errors: missing cwd, bad arguments', async () => {
  const gone = await tool.run({ command: 'ls' }, { ...ws.ctx, cwd: `${ws.cwd}/missing` });
  expect(gone).toMatchObject({
    status: 'failed',
    output: `Error: the working directory ${ws.cwd}/missing does not exist, so the command cannot run.`,
  });
  const bad = await tool.run({ command: 'ls', timeout_ms: -5 }, ws.ctx);
  expect(bad.status).toBe('failed');
  expect(bad.output).toContain('- timeout_ms: Too small');
  const none = await tool.run({ cmd: 'ls' }, ws.ctx);
  expect(none.output).toContain('- command: Invalid input: expected string, received undefined');
});

test('titles show the command, shortened', () => {
  expect(tool.title({ command: 'ls -la' })).toBe('Run: ls -la');
  expect(tool.title({ command: `echo ${'x'.repeat(100)}` })).toBe(`Run: echo ${'x'.repeat(54)}…`);
  expect(tool.title({ command: 'cd src\nnpm test' })).toBe('Run: cd src …');
  // An emoji or accented letter across the cut is left out whole, never half of it.
  expect(tool.title({ command: `echo ${'x'.repeat(51)}👨‍👩‍👧 hi` })).toBe(`Run: echo ${'x'.repeat(51)}…`);
  expect(tool.title({ command: `echo ${'x'.repeat(53)}e\u0301 hi` })).toBe(`Run: echo ${'x'.repeat(53)}…`);
  expect(tool.kind).toBe('execute');
  expect(tool.permission).toBe('command');
  expect(tool.locations({ command: 'ls' }, '/w')).toEqual([]);
});

test('when the agent process exits, running commands are ended with it', async () => {
  const script = `${ws.cwd}/host.mts`;
  const bashModule = new URL('./bash.ts', import.meta.url).href;
  await ws.write({
    'host.mts': [
      `import { createBash } from ${JSON.stringify(bashModule)};`,
      `import { existsSync } from 'node:fs';`,
      `const ctx = { cwd: ${JSON.stringify(ws.cwd)}, spillRoot: ${JSON.stringify(ws.spillRoot)}, env: { PATH: process.env.PATH },`,
      `  signal: new AbortController().signal, newId: (p) => p, fs: null, previewBudget: 1000, bashTimeoutMs: 60000 };`,
      `void createBash().run({ command: 'sleep 30 & echo $! > child.pid; wait' }, ctx);`,
      // Exit (without waiting for the command) once the grandchild is known.
      `const t = setInterval(() => { if (existsSync(${JSON.stringify(`${ws.cwd}/child.pid`)})) { clearInterval(t); process.exit(0); } }, 20);`,
    ].join('\n'),
  });
  const { execa } = await import('execa');
  // Run from the repo root, where the tsx loader resolves.
  const host = await execa(process.execPath, ['--import', 'tsx', script], { reject: false });
  expect(host.exitCode, host.stderr).toBe(0);
  const child = await pidIn(`${ws.cwd}/child.pid`);
  await expect.poll(() => isAlive(child)).toBe(false);
});
