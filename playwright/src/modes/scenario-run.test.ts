import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriverError } from '../driver/driver.js';
import { fixturesDir, scenarioPaths } from '../scenario/corpus.js';
import { ScenarioError } from '../scenario/input.js';
import { expect, test } from '../testing/suite-test.js';
import { type RunOutcome, runCorpusScenario, scenarioAgentCommand } from './scenario-run.js';

const SDK_EXAMPLE = 'sdk-example-permission';

test('a scenario runs the agent it names, else the project command; an unknown name says what is known', () => {
  const opts = {
    agentCommand: ['our-agent', '--overlay', 'x.json'],
    agents: { 'sdk-example': ['node', 'ex.js'] },
  };
  expect(scenarioAgentCommand({}, 'f/input.json', opts)).toEqual(['our-agent', '--overlay', 'x.json']);
  expect(scenarioAgentCommand({ agent: 'sdk-example' }, 'f/input.json', opts)).toEqual(['node', 'ex.js']);
  const unknown = () => scenarioAgentCommand({ agent: 'other' }, 'fixtures/scenarios/s/input.json', opts);
  expect(unknown).toThrow(ScenarioError);
  expect(unknown).toThrow(
    'fixtures/scenarios/s/input.json: agent: unknown agent "other" (known: sdk-example). Use one of these names, leave "agent" out to run the default agent, or add the agent\'s command line to `use.agents` in playwright.config.ts.',
  );
  expect(() => scenarioAgentCommand({ agent: 'toString' }, 'f', { agentCommand: ['a'] })).toThrow(
    'f: agent: unknown agent "toString" (known: none).',
  );
  expect(() => scenarioAgentCommand({}, 'f', { agentCommand: [] })).toThrow(/no agent command/);
});

test('the SDK example scenario is stable across runs: random session ids normalize, the harness writes its log', async ({
  agentCommand,
  agentCommands: agents,
  runDirs,
}) => {
  const paths = scenarioPaths(fixturesDir(), SDK_EXAMPLE);
  const run = () => runCorpusScenario({ paths, mode: 'replay', dirs: runDirs, agentCommand, agents });
  const [a, b] = await Promise.all([run(), run()]);
  const rawSessionIds = (o: RunOutcome) =>
    o.result.stdout.map((l) => /"sessionId":"([^"]+)"/.exec(l.text)?.[1]).filter(Boolean);
  // The agent draws a fresh random id per run (the comparison below is not trivially equal)...
  expect(a.result.sessionId).toMatch(/^[0-9a-f]{32}$/);
  expect(b.result.sessionId).not.toBe(a.result.sessionId);
  expect(new Set(rawSessionIds(a))).toEqual(new Set([a.result.sessionId]));
  // ...and the normalized wire and the observed log are byte-identical, and equal to the fixtures.
  for (const o of [a, b]) {
    expect(o.result.problems).toEqual([]);
    expect(o.logSource).toBe('harness');
    expect(o.rawLog).toBe('');
  }
  expect(b.stdoutText).toBe(a.stdoutText);
  expect(b.projected).toEqual(a.projected);
  expect(a.stdoutText).toBe(await readFile(paths.stdout, 'utf8'));
  expect(a.projected.text).toBe(await readFile(paths.session, 'utf8'));
  expect(a.stdoutText).toContain('"sessionId":"{{sessionId:1}}"');
});

test("a scenario's stdout gets the normalize rules of the agent it runs, not the project's", async ({
  agentCommand,
  agentCommands: agents,
  runDirs,
}) => {
  const paths = scenarioPaths(fixturesDir(), SDK_EXAMPLE);
  const toolCall = { pattern: '"toolCallId":"call_\\d+"', placeholder: '"toolCallId":"{{call}}"' };
  const o = await runCorpusScenario({
    paths,
    mode: 'replay',
    dirs: runDirs,
    agentCommand,
    agents,
    rules: {
      project: { paths: ['/result/agentCapabilities'] },
      agents: { 'sdk-example': { patterns: [toolCall], paths: ['/result/protocolVersion'] } },
    },
  });
  const committed = await readFile(paths.stdout, 'utf8');
  expect(committed).toContain('"toolCallId":"call_1"');
  expect(o.stdoutText).toBe(
    committed
      .replace('"protocolVersion":1', '"protocolVersion":"{{volatile}}"')
      .replace(/"toolCallId":"call_\d+"/g, '"toolCallId":"{{call}}"'),
  );
});

test('agentConfig reaches the agent as the file ACP_SNAPSHOT_AGENT_CONFIG names, root placeholders expanded', async ({
  runDirs,
}) => {
  const fixtures = await mkdtemp(join(tmpdir(), 'run-agent-config-'));
  try {
    const paths = scenarioPaths(fixtures, 'configured');
    await mkdir(paths.dir, { recursive: true });
    await writeFile(paths.session, '');
    const write = (agentConfig: Record<string, unknown>) =>
      writeFile(
        paths.input,
        JSON.stringify({
          description: 'hands the agent its config',
          agent: 'fake',
          steps: [{ op: 'initialize' }, { op: 'new_session' }, { op: 'prompt', text: 'config?' }],
          agentConfig,
        }),
      );
    const agents = {
      fake: [process.execPath, join(process.cwd(), 'playwright/src/testing/agents/fake-agent.mjs'), 'config'],
    };
    const run = () => runCorpusScenario({ paths, mode: 'replay', dirs: runDirs, agentCommand: [], agents });
    await write({ maxStepsPerTurn: 2, tools: { env: { NOTES: '{{cwd}}/notes' } } });
    const o = await run();
    expect(o.result.problems).toEqual([]);
    const chunk = o.result.stdout.map((l) => JSON.parse(l.text)).find((m) => m.method === 'session/update');
    expect(JSON.parse(chunk.params.update.content.text)).toEqual({
      maxStepsPerTurn: 2,
      tools: { env: { NOTES: `${o.roots.cwd}/notes` } },
    });
    // The agent's complaint names the file; the harness says which input.json field that file is.
    await write({ fail: true });
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DriverError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `config error: fail: this agent refuses it \\(in (/tmp/acp-snap-\\w+-\\w+/agent-config\\.json)\\)\n\\(\\1 is "agentConfig" of ${paths.input.replaceAll('.', '\\.')}\\)$`,
      ),
    );
  } finally {
    await rm(fixtures, { recursive: true, force: true });
  }
});
