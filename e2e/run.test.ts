import { readFile } from 'node:fs/promises';
import { expect, test } from './fixtures.js';
import { type RunOutcome, runFixtureScenario, scenarioAgentCommand } from './run.js';
import { ScenarioError } from './scenario.js';
import { fixturesDir, scenarioPaths } from './scenarios.js';

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
  agents,
  runDirs,
}) => {
  const paths = scenarioPaths(fixturesDir(), SDK_EXAMPLE);
  const run = () => runFixtureScenario({ paths, mode: 'replay', dirs: runDirs, agentCommand, agents });
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
