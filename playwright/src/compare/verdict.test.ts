/**
 * The one verdict, through a snapshot store in memory: what `toMatchAcpSnapshot` says and writes for each
 * `--update-snapshots` mode, a recording and a failed model replay, and what the corpus's replay verdict
 * finds, from committed texts read through the same store.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatReplayReport, REPLAY_LINE_PREFIX } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import { fixturesDir, type ScenarioPaths } from '../scenario/corpus.js';
import { type SnapshotPaths, settleSnapshots } from './snapshot-files.js';
import { memorySnapshotStore, readExpected } from './snapshot-store.js';
import { findingsText, replayVerdict, type SnapshotRun, type SnapshotVerdictOptions } from './verdict.js';

const paths: SnapshotPaths = {
  stdout: { path: '/p/tests/__acp__/t/stdout.jsonl', shown: 'tests/__acp__/t/stdout.jsonl' },
  workspace: { path: '/p/tests/__acp__/t/workspace.json', shown: 'tests/__acp__/t/workspace.json' },
  log: { path: '/p/tests/__acp__/t/session.jsonl', shown: 'tests/__acp__/t/session.jsonl' },
  mcp: { path: '/p/tests/__acp__/t/mcp.jsonl', shown: 'tests/__acp__/t/mcp.jsonl' },
};
const wire = (text: string) => `${JSON.stringify({ jsonrpc: '2.0', id: 0, result: { text } })}\n`;
const WORKSPACE = '{\n  "files": []\n}\n';
const header = (plugin: string) => `${JSON.stringify({ type: 'session/header', provider: { plugin } })}\n`;
const run = (over: Partial<SnapshotRun> = {}): SnapshotRun => ({
  texts: { stdout: wire('hi'), workspace: WORKSPACE },
  recording: false,
  replayed: true,
  problems: [],
  ...over,
});
const opts = (updateSnapshots: SnapshotVerdictOptions['updateSnapshots']): SnapshotVerdictOptions => ({
  updateSnapshots,
  title: 'says hi',
  dir: 't',
});
const committed = () =>
  memorySnapshotStore({ [paths.stdout.path]: wire('hi'), [paths.workspace.path]: WORKSPACE });

test('a run equal to its snapshots passes and writes nothing', async () => {
  const store = committed();
  const verdict = await settleSnapshots(store, paths, run(), opts('missing'));
  expect(verdict.pass).toBe(true);
  expect(verdict.message).toBe('the ACP run matches its snapshots (t/)');
  expect(verdict.writes).toEqual([]);
  expect([...store.files.keys()]).toEqual([paths.stdout.path, paths.workspace.path]);
});

test('missing snapshots are written unless the mode is none; outside an update run the test fails asking for a review', async () => {
  const store = memorySnapshotStore();
  // Playwright's default mode (no --update-snapshots): written, and the test that wrote them fails.
  const verdict = await settleSnapshots(store, paths, run(), opts('default'));
  expect(verdict.pass).toBe(false);
  expect(verdict.message).toBe(
    [
      'tests/__acp__/t/stdout.jsonl: no snapshot yet; written: review it, commit it, and run again.',
      'tests/__acp__/t/workspace.json: no snapshot yet; written: review it, commit it, and run again.',
    ].join('\n'),
  );
  expect(Object.fromEntries(store.files)).toEqual({
    [paths.stdout.path]: wire('hi'),
    [paths.workspace.path]: WORKSPACE,
  });
  const none = memorySnapshotStore();
  const refused = await settleSnapshots(none, paths, run(), opts('none'));
  expect(refused.message).toBe(
    [
      'tests/__acp__/t/stdout.jsonl: no snapshot yet (run with --update-snapshots to write it).',
      'tests/__acp__/t/workspace.json: no snapshot yet (run with --update-snapshots to write it).',
    ].join('\n'),
  );
  expect(none.files.size).toBe(0);
  // An update run (`--update-snapshots=missing|changed|all`) writes them and passes, as toMatchSnapshot does.
  for (const mode of ['missing', 'changed', 'all'] as const) {
    const updating = memorySnapshotStore();
    const updated = await settleSnapshots(updating, paths, run(), opts(mode));
    expect([mode, updated.pass, updated.message]).toEqual([
      mode,
      true,
      'the ACP run matches its snapshots (t/)',
    ]);
    expect([...updating.files.keys()]).toEqual([paths.stdout.path, paths.workspace.path]);
  }
});

test('a difference names the file, the changed field and the accept command, and is not written', async () => {
  const store = committed();
  const changed = run({ texts: { stdout: wire('hello'), workspace: '{\n  "files": [1]\n}\n' } });
  const verdict = await settleSnapshots(store, paths, changed, opts('missing'));
  expect(verdict.pass).toBe(false);
  expect(verdict.message).toBe(
    [
      'tests/__acp__/t/stdout.jsonl differs at line 1, /result/text:',
      '  [-hi-]{+hello+}',
      'tests/__acp__/t/workspace.json differs (first difference at line 2)',
      "If the change is intended, accept it: npx playwright test --update-snapshots -g 'says hi' (the diffs are attached).",
    ].join('\n'),
  );
  expect(verdict.differs.map((d) => d.surface)).toEqual(['stdout', 'workspace']);
  expect(store.files.get(paths.stdout.path)).toBe(wire('hi'));
  // `changed` and `all` rewrite what differs, and the test passes.
  for (const mode of ['changed', 'all'] as const) {
    const updated = committed();
    const v = await settleSnapshots(updated, paths, changed, opts(mode));
    expect([v.pass, v.message]).toEqual([true, 'the ACP run matches its snapshots (t/)']);
    expect(updated.files.get(paths.stdout.path)).toBe(wire('hello'));
  }
});

test('a recording rewrites what it changed and passes', async () => {
  const store = memorySnapshotStore({ [paths.stdout.path]: wire('hi') });
  const verdict = await settleSnapshots(
    store,
    paths,
    run({ recording: true, replayed: false, texts: { stdout: wire('hello'), workspace: WORKSPACE } }),
    opts('none'),
  );
  expect(verdict.pass).toBe(true);
  expect(Object.fromEntries(store.files)).toEqual({
    [paths.stdout.path]: wire('hello'),
    [paths.workspace.path]: WORKSPACE,
  });
});

test('after a failed model replay nothing is written and no command that writes is suggested', async () => {
  const store = memorySnapshotStore({ [paths.stdout.path]: wire('hi') });
  const failed = run({
    texts: { stdout: wire('model error 400'), workspace: WORKSPACE },
    replayFailure: 'model-http replay: 1 problem(s) in 1 model call(s):',
    problems: ['agent process 1 exited (1)'],
  });
  const verdict = await settleSnapshots(store, paths, failed, opts('all'));
  expect(verdict.pass).toBe(false);
  expect(verdict.message).toBe(
    [
      'model-http replay: 1 problem(s) in 1 model call(s):',
      'The snapshots below differ after a failed model replay: fix the replay (or record again) first; do not accept them.',
      'problem: agent process 1 exited (1)',
      'tests/__acp__/t/stdout.jsonl differs at line 1, /result/text:',
      '  [-hi-]{+model error 400+}',
      'tests/__acp__/t/workspace.json: no snapshot yet (not written: the model replay failed).',
    ].join('\n'),
  );
  expect(Object.fromEntries(store.files)).toEqual({ [paths.stdout.path]: wire('hi') });
});

test('a replayed log compares with the recorded provider; a problem alone fails the run', async () => {
  const store = committed();
  await store.write(paths.log.path, header('openai-compatible'));
  const replayed = run({ texts: { stdout: wire('hi'), workspace: WORKSPACE, log: header('replay') } });
  expect((await settleSnapshots(store, paths, replayed, opts('missing'))).pass).toBe(true);
  const troubled = await settleSnapshots(store, paths, { ...replayed, problems: ['x'] }, opts('missing'));
  expect([troubled.pass, troubled.message]).toEqual([false, 'problem: x']);
  // A recording keeps its own provider: a change of plugin is a change.
  const recorded = await settleSnapshots(
    store,
    paths,
    { ...replayed, recording: true, replayed: false },
    opts('missing'),
  );
  expect(recorded.writes).toEqual([{ surface: 'log', text: header('replay') }]);
  expect(store.files.get(paths.log.path)).toBe(header('replay'));
});

test("the corpus's replay verdict reads the committed surfaces through a store and finds each difference", async () => {
  const scenario = {
    name: 'greet',
    session: '/f/scenarios/greet/session.jsonl',
    stdout: '/f/scenarios/greet/stdout.expected.jsonl',
    workspaceExpected: '/f/scenarios/greet/workspace.expected.json',
    sidecars: '/f/sidecars',
  } as ScenarioPaths;
  // A recorded header (no model calls): the replay plugin names itself in the replayed one.
  const recorded = `${readFileSync(join(fixturesDir(), 'scenarios', 'hello', 'session.jsonl'), 'utf8').split('\n')[0]}\n`;
  const store = memorySnapshotStore({
    [scenario.session]: recorded,
    [scenario.stdout]: wire('hi'),
    [scenario.workspaceExpected]: WORKSPACE,
  });
  const expected = await readExpected(scenario, store);
  const replayed = {
    result: { stderr: [], problems: [] },
    records: [],
    projected: { text: recorded.replace('"plugin":"openai-compatible"', '"plugin":"replay"'), sidecars: {} },
    stdoutText: wire('hi'),
    workspaceText: WORKSPACE,
  };
  const same = replayVerdict(scenario, replayed, expected, '/f');
  expect([findingsText(same.findings), same.compared]).toEqual(['', true]);
  expect(replayed.projected.text).not.toBe(recorded);
  expect(same.actualLog).toBe(recorded);
  const changed = replayVerdict(scenario, { ...replayed, stdoutText: wire('hello') }, expected, '/f');
  expect(changed.findings.map((f) => [f.kind, f.cause?.key])).toEqual([
    ['stdout', 'stdout replace /result/text -hi +hello'],
  ]);
  expect(changed.findings[0]!.message).toMatch(
    /^greet: stdout differs from stdout.expected.jsonl at line 1, \/result\/text:\n {2}\[-hi-\]\{\+hello\+\}\n/,
  );
  const missing = replayVerdict(scenario, replayed, { ...expected, log: undefined }, '/f');
  expect(findingsText(missing.findings)).toBe(
    'scenarios/greet/session.jsonl is missing; record it: npm run record -- greet',
  );
});

test('a replay stopped by a drift: the cause is read from the report the plugin wrote, not from its error text', async () => {
  const scenario = (name: string) =>
    ({ name, session: `/f/scenarios/${name}/session.jsonl` }) as ScenarioPaths;
  const system = (cwd: string, word: string) => `You work in ${cwd}.\n- Make the ${word} change.\n`;
  const replayed = (name: string, errorLines: string[]) => ({
    result: {
      stderr: [
        [
          formatReplayReport({
            scenario: name,
            consumed: [],
            total: 1,
            drift: {
              part: 'system',
              path: 'system',
              recorded: system(`{{cwd}}/${name}`, 'smallest'),
              live: system(`{{cwd}}/${name}`, 'minimal'),
            },
          }),
          ...errorLines.map((l) => `${REPLAY_LINE_PREFIX}${l}`),
        ].join('\n'),
      ],
      problems: [],
    },
    records: [],
    projected: { text: '', sidecars: {} },
    stdoutText: '',
    workspaceText: '',
  });
  const expected = { log: '', stdout: '', workspace: '' };
  // Two scenarios whose errors say it differently (another wording, another line count): one cause.
  const a = replayVerdict(
    scenario('hello'),
    replayed('hello', [
      'ReplayDriftError: scenario "hello": model call 1 of 1 differs: first differing part system',
    ]),
    expected,
    '/f',
  );
  const b = replayVerdict(
    scenario('read-file'),
    replayed('read-file', ['DriftError: the system prompt is not the recorded one', '  (see stderr)']),
    expected,
    '/f',
  );
  expect(a.compared).toBe(false);
  expect(a.findings.map((f) => f.kind)).toEqual(['replay']);
  expect(a.findings[0]!.cause?.key).toBeDefined();
  expect(a.findings[0]!.cause?.key).toBe(b.findings[0]!.cause?.key);
  expect(a.findings[0]!.cause?.detail).toContain('~- Make the [-smallest-]{+minimal+} change.');
  // The test's own message: the plugin's first line, then the changed words.
  expect(a.findings[0]!.message).toContain(
    'ReplayDriftError: scenario "hello": model call 1 of 1 differs: first differing part system\n  the system prompt changed (changed words;',
  );
});
