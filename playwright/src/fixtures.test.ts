import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';

/**
 * The fixtures in a Playwright run of their own (a scratch project whose spec imports the harness from source), so
 * what a user sees after the run (the report, what is left on disk) is what is checked.
 */
const HARNESS = join(import.meta.dirname, 'index.ts');
const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

let project: string;
test.beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'fixtures-test-'));
});
test.afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

/** Runs the scratch project's specs; returns the JSON report, or with `reporter` (a file of the project) its output. */
async function runProject(specs: Record<string, string>, reporter?: string) {
  await writeFile(
    join(project, 'playwright.config.mjs'),
    `export default { testDir: '.', testMatch: '*.spec.ts', workers: 1, retries: 0, outputDir: 'test-results' };\n`,
  );
  await writeFile(join(project, 'package.json'), '{ "type": "module" }\n');
  for (const [name, body] of Object.entries(specs)) await writeFile(join(project, name), body);
  const r = await execa(process.execPath, [PLAYWRIGHT_CLI, 'test', `--reporter=${reporter ?? 'json'}`], {
    cwd: project,
    reject: false,
    all: true,
    env: { FORCE_COLOR: '0', PLAYWRIGHT_JSON_OUTPUT_NAME: join(project, 'report.json') },
  });
  return {
    exitCode: r.exitCode,
    output: r.all ?? '',
    report: reporter ? undefined : JSON.parse(await readFile(join(project, 'report.json'), 'utf8')),
  };
}

test('a failed test keeps its roots after the run ends and its report says where; a passing worker leaves nothing', async () => {
  // A nested run transpiles the harness from source: seconds on a loaded machine.
  test.setTimeout(120_000);
  // Files run in name order; the failure ends the first worker, the second file gets a worker of its own.
  const { exitCode, report } = await runProject({
    'a-kept.spec.ts': `
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from ${JSON.stringify(HARNESS)};
test.use({ agentProfile: { command: ['true'] } });
test('passes', async ({ roots }) => { await writeFile(join(roots.cwd, 'left.txt'), 'passed'); });
test('fails', async ({ roots }) => {
  await writeFile(join(roots.cwd, 'left.txt'), 'what the agent left');
  expect(1).toBe(2);
});
`,
    'b-pass.spec.ts': `
import { expect, test } from ${JSON.stringify(HARNESS)};
test.use({ agentProfile: { command: ['true'] } });
test('passes alone', async ({ roots }) => { console.log('ROOT ' + roots.root); expect(roots.root).toBeTruthy(); });
`,
  });
  expect(exitCode).toBe(1);
  type Result = { attachments: { name: string; body: string }[]; stdout: { text: string }[] };
  type Test = { annotations: { type: string; description: string }[]; results: Result[] };
  const tests: Test[] = report.suites.flatMap((f: { specs: { tests: Test[] }[] }) =>
    f.specs.map((s) => s.tests[0]),
  );
  expect(tests).toHaveLength(3);
  const [passed, failed, alone] = tests as [Test, Test, Test];
  expect(passed.annotations).toEqual([]);
  const kept = failed.annotations.find((a) => a.type === 'kept for inspection')?.description ?? '';
  expect(kept).toMatch(/^\/tmp\/acp-w0-\w{6}\/acp-snap-[0-9a-f]{8}-\w{6}$/);
  try {
    // Its worker has shut down: the failed test's roots are still there, named in its report.
    expect(await readFile(join(kept, 'work/left.txt'), 'utf8')).toBe('what the agent left');
    const attachment = failed.results[0]?.attachments.find((a) => a.name === 'kept for inspection');
    expect(Buffer.from(attachment?.body ?? '', 'base64').toString()).toBe(`kept for inspection: ${kept}`);
    // The passing test of the same worker left nothing: only the kept root is in the base directory.
    expect(await readdir(dirname(kept))).toEqual([basename(kept)]);
  } finally {
    // Only the kept root's base, which the pattern above proved is a /tmp/acp-wN- directory.
    if (kept.startsWith('/tmp/acp-w')) await rm(dirname(kept), { recursive: true, force: true });
  }
  // A worker whose tests all passed removes its base directory.
  const root = /ROOT (\S+)/.exec((alone.results[0]?.stdout ?? []).map((o) => o.text).join(''))?.[1] ?? '';
  expect(root).toMatch(/^\/tmp\/acp-w0-/);
  expect(dirname(root)).not.toBe(dirname(kept));
  expect(existsSync(dirname(root))).toBe(false);
});

test("a relative agent path that is not installed: the error names it as written and the project, not the test's temporary cwd", async () => {
  test.setTimeout(120_000);
  const { exitCode, report } = await runProject({
    'a-script.spec.ts': `
import { test } from ${JSON.stringify(HARNESS)};
test.use({ agentProfile: { command: [process.execPath, 'node_modules/my-agent/cli.js', '--acp'] } });
test('starts the agent', async ({ acp }) => { await acp.initialize(); });
`,
    'b-bin.spec.ts': `
import { test } from ${JSON.stringify(HARNESS)};
test.use({ agentProfile: { command: ['node_modules/.bin/my-agent', '--acp'] } });
test('starts the agent', async ({ acp }) => { await acp.initialize(); });
`,
  });
  expect(exitCode).toBe(1);
  type Test = { results: { errors: { message: string }[] }[] };
  const tests: Test[] = report.suites.flatMap((f: { specs: { tests: Test[] }[] }) =>
    f.specs.map((s) => s.tests[0]),
  );
  const messages = tests.map((t) => (t.results[0]?.errors ?? []).map((e) => e.message).join('\n'));
  expect(messages).toHaveLength(2);
  for (const [message, written] of [
    [messages[0]!, 'node_modules/my-agent/cli.js'],
    [messages[1]!, 'node_modules/.bin/my-agent'],
  ] as const) {
    expect(message).toContain(`${written} does not exist in the project ${project}`);
    expect(message).not.toContain('/acp-w');
  }
});

test("the acp fixture's steps open the spec's line that made each call, in the report", async () => {
  test.setTimeout(120_000);
  const agent = [process.execPath, join(import.meta.dirname, 'testing/agents/fake-agent.mjs'), 'echo'];
  const { exitCode, output } = await runProject(
    {
      // Step locations are not in the JSON report: a reporter of the project's own prints them.
      'steps-reporter.mjs': `export default class { onStepEnd(test, result, step) {
  if (step.category === 'test.step') console.log('STEP ' + JSON.stringify([step.title, step.location?.file, step.location?.line]));
} }
`,
      'talk.spec.ts': `import { test } from ${JSON.stringify(HARNESS)};
test.use({ agentProfile: { command: ${JSON.stringify(agent)} } });
test('talks', async ({ acp }) => {
  await acp.initialize();

  await acp.newSession();
  await acp.prompt('Say hi.');
  await acp.close();
});
`,
    },
    './steps-reporter.mjs',
  );
  expect(exitCode, output).toBe(0);
  const steps = [...output.matchAll(/^STEP (.*)$/gm)].map(
    (m) => JSON.parse(m[1]!) as [string, string, number],
  );
  const file = join(project, 'talk.spec.ts');
  expect(steps).toEqual([
    ['spawn agent', file, 4],
    ['initialize', file, 4],
    ['session/new', file, 6],
    // The echo agent sends the prompt's content blocks back as its answer.
    ['agent: "[{\\"text\\":\\"Say hi.\\",\\"type\\":\\"text\\"}]"', file, 7],
    ['→ end_turn', file, 7],
    ['session/prompt "Say hi."', file, 7],
    ['close stdin and await exit', file, 8],
  ]);
});

test("client terminals: test.use({ terminal: true }) runs the agent's command in the test's cwd and environment; one left unreleased is named; one that never exits is killed at the test's timeout and named with its command line, leaving no process", async () => {
  test.setTimeout(120_000);
  const agent = [process.execPath, join(import.meta.dirname, 'testing/agents/fake-agent.mjs'), 'terminal'];
  // A marker no other process on the machine has in its command line: what the orphan check looks for.
  const marker = `never-exits-${basename(project)}`;
  const { exitCode, report } = await runProject({
    'terminal.spec.ts': `import { test, expect } from ${JSON.stringify(HARNESS)};
test.use({ agentProfile: { command: ${JSON.stringify(agent)} }, terminal: true });
test('runs a command', async ({ acp, roots }) => {
  const init = await acp.initialize();
  await acp.newSession();
  const r = await acp.prompt('pwd; echo "home=$HOME"; exit 4');
  expect(r.text).toBe(roots.cwd + '\\nhome=' + roots.home + '\\n[exit 4]');
  expect(r.updates[0].content).toEqual([{ type: 'terminal', terminalId: 'term-1' }]);
});
test('keeps a terminal', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  await acp.prompt('keep: echo kept');
});
test('never exits', async ({ acp }) => {
  test.setTimeout(4000);
  await acp.initialize();
  await acp.newSession();
  await acp.prompt('sleep 300 # ${marker}');
});
`,
  });
  const tests = Object.fromEntries(
    report.suites[0].specs.map((s: { title: string; tests: { results: unknown[] }[] }) => [
      s.title,
      s.tests[0]!.results[0] as {
        status: string;
        errors: { message: string }[];
        annotations?: { type: string; description: string }[];
      },
    ]),
  );
  expect(exitCode).toBe(1);
  expect(tests['runs a command']!.status, JSON.stringify(tests['runs a command'])).toBe('passed');
  expect(tests['keeps a terminal']!.status).toBe('passed');
  expect(tests['keeps a terminal']!.annotations).toContainEqual({
    type: 'client terminal',
    description:
      'terminal term-1 (`echo kept`) was never released by the agent: the client released it at the end of the test',
  });
  const never = tests['never exits']!;
  expect(never.status).toBe('timedOut');
  expect(never.errors.map((e: { message: string }) => e.message).join('\n')).toMatch(
    new RegExp(
      `client terminals: terminal term-1 \\(\`sleep 300 # ${marker}\` in /\\S+\\) was still running at the end of the test: the client killed it and released it`,
    ),
  );
  expect(await processesWith(marker)).toEqual([]);
});

/** The pids of the processes whose command line holds this text (what an orphan check looks for). */
async function processesWith(text: string): Promise<string[]> {
  return (await readdir('/proc'))
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    });
}

test('MCP servers: test.use({ mcpServers }) attaches a test MCP server to session/new; the agent calls its tool; its traffic is the mcp.jsonl snapshot; a crash is named with its stderr; an HTTP server is called by an agent declaring http and refused for one that does not; no server process is left', async () => {
  test.setTimeout(120_000);
  const agent = [process.execPath, join(import.meta.dirname, 'testing/agents/fake-agent.mjs'), 'mcp'];
  // A server name no other process on the machine has in its command line: what the orphan check looks for.
  const marker = `left-${basename(project)}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const spec = (answer: string) => `import { test, expect } from ${JSON.stringify(HARNESS)};
test.use({
  agentProfile: { command: ${JSON.stringify(agent)} },
  mcpServers: [{ name: 'notes', tools: [{ name: 'search', description: 'Search notes', answers: [${JSON.stringify(answer)}] }] }],
});
test('calls a tool', async ({ acp, roots }) => {
  await acp.initialize();
  await acp.newSession();
  // The arguments name the cwd, as an agent's do: the snapshot holds it as {{cwd}}.
  const r = await acp.prompt('notes search ' + JSON.stringify({ path: roots.cwd + '/todo.md' }));
  expect(r.text).toBe(${JSON.stringify(answer)});
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
test('a server that crashes', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession({ mcpServers: [await acp.mcp.attach({ name: 'flaky', tools: [{ name: 'boom', description: 'x', answers: [{ crash: 'fatal: index corrupt' }] }] })] });
  const r = await acp.prompt('flaky boom {}');
  expect(r.text).toContain('tool error: MCP error');
  await acp.close();
});
test('an HTTP server for an agent that does not declare it', async ({ acp }) => {
  await acp.initialize();
  const tickets = await acp.mcp.attach({ name: 'tickets', transport: 'http', tools: [] });
  await expect(acp.newSession({ mcpServers: [tickets] })).rejects.toThrow(
    'session/new: MCP server "tickets" is attached over HTTP, but fake-agent did not declare mcpCapabilities.http in initialize (it declared mcpCapabilities: {})',
  );
});
test.describe('over HTTP', () => {
  test.use({
    agentProfile: { command: ${JSON.stringify([...agent.slice(0, 2), 'mcp-http'])} },
    mcpServers: [{ name: 'tickets', transport: 'http', tools: [{ name: 'open', description: 'Open a ticket', answers: ['ticket #7 🎫'] }] }],
  });
  test('an agent declaring http calls a tool of an HTTP server', async ({ acp }) => {
    await acp.initialize();
    await acp.newSession();
    const r = await acp.prompt('tickets open {}');
    expect(r.text).toBe('ticket #7 🎫');
    const called = (await acp.mcp.traffic()).filter((l) => 'message' in l && l.message.method === 'tools/call');
    expect(called).toHaveLength(1);
  });
});
test('a server left running by the agent', async ({ acp }) => {
  await acp.initialize();
  await acp.newSession({ mcpServers: [await acp.mcp.attach({ name: ${JSON.stringify(marker)}, tools: [] })] });
  // The agent started it; it is killed at the end of the test with the agent: nothing of it is left.
  const { readdirSync, readFileSync } = await import('node:fs');
  const running = readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).filter((p) => {
    try { return readFileSync('/proc/' + p + '/cmdline', 'utf8').includes(${JSON.stringify(marker)}); } catch { return false; }
  });
  expect(running).toHaveLength(1);
});
`;
  const first = await runProject({ 'mcp.spec.ts': spec('3 matches 📝') });
  const results = (r: typeof first) =>
    Object.fromEntries(
      r.report.suites[0].specs.map((s: { title: string; tests: { results: unknown[] }[] }) => [
        s.title,
        s.tests[0]!.results[0] as {
          status: string;
          errors: { message: string }[];
          annotations?: { type: string; description: string }[];
        },
      ]),
    );
  const one = results(first);
  expect(one['an HTTP server for an agent that does not declare it']!.status).toBe('passed');
  expect(
    one['a server left running by the agent']!.status,
    JSON.stringify(one['a server left running by the agent']?.errors),
  ).toBe('passed');
  expect(await processesWith(marker)).toEqual([]);
  // The first run writes the snapshots and asks for their review.
  expect(one['calls a tool']!.errors.map((e: { message: string }) => e.message).join('\n')).toContain(
    'calls-a-tool/mcp-linux.jsonl: no snapshot yet; written',
  );
  expect(one['a server that crashes']!.status).toBe('passed');
  expect(one['a server that crashes']!.annotations).toContainEqual({
    type: 'MCP server crash',
    description: 'MCP server flaky crashed (exit 1), as its script said; its stderr:\nfatal: index corrupt',
  });
  const snapshot = await readFile(
    join(project, 'mcp.spec.ts-snapshots', 'calls-a-tool', 'mcp-linux.jsonl'),
    'utf8',
  ).catch(async () => {
    throw new Error(
      `no mcp.jsonl; the project holds: ${(await readdir(project, { recursive: true })).join(', ')}`,
    );
  });
  const calls = snapshot
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => l.message?.method === 'tools/call' || l.message?.result?.content);
  expect(calls).toEqual([
    {
      server: 'notes',
      from: 'agent',
      message: expect.objectContaining({
        method: 'tools/call',
        params: { name: 'search', arguments: { path: '{{cwd}}/todo.md' } },
      }),
    },
    {
      server: 'notes',
      from: 'server',
      message: expect.objectContaining({ result: { content: [{ type: 'text', text: '3 matches 📝' }] } }),
    },
  ]);
  // The same run again matches; a changed answer is a difference in mcp.jsonl, named.
  const again = results(await runProject({ 'mcp.spec.ts': spec('3 matches 📝') }));
  expect(again['calls a tool']!.status, JSON.stringify(again['calls a tool'])).toBe('passed');
  const changed = results(await runProject({ 'mcp.spec.ts': spec('2 matches') }));
  const message = changed['calls a tool']!.errors.map((e: { message: string }) => e.message).join('\n');
  expect(message).toContain('calls-a-tool/mcp-linux.jsonl differs');
});
