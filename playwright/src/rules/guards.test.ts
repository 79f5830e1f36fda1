import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildChunk,
  buildHeader,
  finishChunk,
  type LogRecord,
  makeRecords,
  projectLog,
  type SessionEvent,
  serializeLog,
  textChunk,
} from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { checkFixtures, type GuardOptions, sidecarHash } from './guards.js';

let dir: string;
let fx: string;
const opts = (): GuardOptions => ({
  displayBase: dir,
  home: '/home/alice',
  user: 'alice',
  secretValues: ['s3cr3t-key-value'],
});

const input = {
  description: 'says hello',
  steps: [{ op: 'initialize' }, { op: 'new_session' }, { op: 'prompt', text: 'hi' }],
};

function events(): SessionEvent[] {
  return [
    buildHeader({ cwd: '/tmp/acp-snap-00000000-aaaaaa/work' }),
    { type: 'turn/start', turn: 0 },
    buildChunk(0, 0, textChunk('Hel')),
    buildChunk(0, 0, textChunk('lo')),
    buildChunk(0, 0, finishChunk('stop')),
    { type: 'turn/end', turn: 0, kind: 'completed' },
  ] as SessionEvent[];
}

function records(): LogRecord[] {
  return makeRecords(events().slice(1) as never, { startTs: 1_735_689_600_000 }) as LogRecord[];
}

/** Writes a scenario whose files pass every guard; returns its projected sidecars. */
async function goodScenario(name: string, extra: Partial<typeof input> & Record<string, unknown> = {}) {
  const s = join(fx, 'scenarios', name);
  await mkdir(s, { recursive: true });
  await writeFile(join(s, 'input.json'), JSON.stringify({ ...input, ...extra }));
  await writeFile(join(s, 'stdout.expected.jsonl'), '{"jsonrpc":"2.0","id":"{{id:1}}","result":{}}\n');
  await writeFile(join(s, 'workspace.expected.json'), '{\n  "files": []\n}\n');
  const header: LogRecord = { event: events()[0]! };
  const projected = projectLog([header, ...records()], {
    roots: { cwd: '/tmp/acp-snap-00000000-aaaaaa/work' },
  });
  await writeFile(join(s, 'session.jsonl'), projected.text);
  await mkdir(join(fx, 'sidecars'), { recursive: true });
  for (const [hash, content] of Object.entries(projected.sidecars))
    await writeFile(join(fx, 'sidecars', `${hash}.json`), content);
  return { dir: s, projected };
}

const messages = async (rule?: string) =>
  (await checkFixtures(fx, opts())).filter((v) => !rule || v.rule === rule).map((v) => v.message);

test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guards-test-'));
  fx = join(dir, 'fixtures');
  await mkdir(join(fx, 'scenarios'), { recursive: true });
  await mkdir(join(fx, 'sidecars'), { recursive: true });
});
test.afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a good tree passes every guard', async () => {
  const { projected } = await goodScenario('hello');
  expect(Object.keys(projected.sidecars).length).toBeGreaterThan(0);
  expect(await messages()).toEqual([]);
});

test('scenario-files: each required file is named when missing', async () => {
  const { dir: s } = await goodScenario('hello');
  await unlink(join(s, 'session.jsonl'));
  await unlink(join(s, 'workspace.expected.json'));
  await mkdir(join(fx, 'scenarios', 'orphan'));
  await writeFile(join(fx, 'scenarios', 'orphan', 'stdout.expected.jsonl'), '{}\n');
  expect(await messages('scenario-files')).toEqual([
    'fixtures/scenarios/hello/session.jsonl: missing (record it: npm run record -- hello)',
    'fixtures/scenarios/hello/workspace.expected.json: missing (every scenario states what it leaves in its workspace; write it: npm run refresh -- hello)',
    'fixtures/scenarios/orphan/input.json: missing (every scenario directory needs one; see the @acp-snapshot/playwright README (node_modules/@acp-snapshot/playwright/README.md), "A scenario\'s input.json")',
    'fixtures/scenarios/orphan/session.jsonl: missing (record it: npm run record -- orphan)',
    'fixtures/scenarios/orphan/workspace.expected.json: missing (every scenario states what it leaves in its workspace; write it: npm run refresh -- orphan)',
  ]);
});

test('scenario-input: an invalid input.json names the file and field', async () => {
  await goodScenario('hello', { description: 'two\nlines' });
  expect(await messages('scenario-input')).toEqual([
    'fixtures/scenarios/hello/input.json: invalid scenario\n  description: must be one line\nFix the field(s) above (see the @acp-snapshot/playwright README (node_modules/@acp-snapshot/playwright/README.md), "A scenario\'s input.json").',
  ]);
});

test('scenario-input: an "agent" name must be one of the configured agents, when they are given', async () => {
  await goodScenario('theirs', { agent: 'sdk-example' });
  await goodScenario('typo', { agent: 'sdk-exmaple' });
  const withAgents = { ...opts(), agents: { 'sdk-example': ['node', 'agent.js'] } };
  const found = (await checkFixtures(fx, withAgents)).filter((v) => v.rule === 'scenario-input');
  expect(found.map((v) => v.message)).toEqual([
    'fixtures/scenarios/typo/input.json: agent: unknown agent "sdk-exmaple" (known: sdk-example). Use one of these names, leave "agent" out to run the default agent, or add the agent\'s command line to `use.agents` in playwright.config.ts.',
  ]);
  // Without the configured names (a fixtures tree checked on its own), the name is not judged.
  expect(await messages('scenario-input')).toEqual([]);
});

test('override-flag: replay.override.json exactly when overridden', async () => {
  await goodScenario('flagged', { flags: { overridden: true } });
  const { dir: s } = await goodScenario('unflagged');
  await writeFile(join(s, 'replay.override.json'), '{}');
  expect(await messages('override-flag')).toEqual([
    'fixtures/scenarios/flagged/input.json: flags.overridden is true but replay.override.json is missing (add it, or drop the flag)',
    'fixtures/scenarios/unflagged/replay.override.json: present but input.json does not set flags.overridden (set it, or delete the file)',
  ]);
});

test('unknown-files: stray files anywhere in the tree are rejected', async () => {
  const { dir: s } = await goodScenario('hello');
  await writeFile(join(s, 'notes.txt'), 'x');
  await mkdir(join(s, 'out'));
  await writeFile(join(fx, 'README.md'), 'x');
  await writeFile(join(fx, 'scenarios', 'loose.json'), '{}');
  await writeFile(join(fx, 'sidecars', 'prompt.txt'), 'x');
  expect(await messages('unknown-files')).toEqual([
    'fixtures/README.md: unknown entry (fixtures/ holds scenarios/ and sidecars/ only)',
    'fixtures/scenarios/hello/notes.txt: unknown file (a scenario holds input.json, stdout.expected.jsonl, session.jsonl, workspace.expected.json, optional replay.override.json and workspace/)',
    'fixtures/scenarios/hello/out: unknown directory (a scenario holds input.json, stdout.expected.jsonl, session.jsonl, workspace.expected.json, optional replay.override.json and workspace/)',
    'fixtures/scenarios/loose.json: orphan file (fixtures/scenarios/ holds one directory per scenario)',
    'fixtures/sidecars/prompt.txt: unknown file (fixtures/sidecars/ holds <sha256>.json files only)',
  ]);
});

test('workspace-expected: workspace.expected.json must be valid and canonical, naming the line or entry', async () => {
  const { dir: a } = await goodScenario('reordered');
  const { dir: b } = await goodScenario('bad-entry');
  const { dir: c } = await goodScenario('unsorted');
  const { dir: d } = await goodScenario('compact');
  await writeFile(
    join(a, 'workspace.expected.json'),
    '{\n  "files": [\n    {\n      "change": "deleted",\n      "path": "a.txt"\n    }\n  ]\n}\n',
  );
  await writeFile(
    join(b, 'workspace.expected.json'),
    JSON.stringify({ files: [{ path: 'a.txt', change: 'added', kind: 'text', lines: 'x' }] }, null, 2),
  );
  const entry = (path: string) => ({ path, change: 'deleted' });
  await writeFile(
    join(c, 'workspace.expected.json'),
    `${JSON.stringify({ files: [entry('b.txt'), entry('a.txt')] }, null, 2)}\n`,
  );
  await writeFile(join(d, 'workspace.expected.json'), '{"files":[]}');
  expect(await messages('workspace-expected')).toEqual([
    'fixtures/scenarios/bad-entry/workspace.expected.json: files[0].lines: Invalid input: expected array, received string (an entry is {path, change: added|changed|deleted, kind: text|binary|symlink|directory|other, ...}); rewrite it: npm run test:snapshot:update -- -g bad-entry',
    'fixtures/scenarios/compact/workspace.expected.json:1: not canonical (pretty JSON with 2-space indent, entries sorted by path, keys in the fixed order path, change, kind, ...; a final newline); rewrite it: npm run test:snapshot:update -- -g compact',
    'fixtures/scenarios/reordered/workspace.expected.json:4: not canonical (pretty JSON with 2-space indent, entries sorted by path, keys in the fixed order path, change, kind, ...; a final newline); rewrite it: npm run test:snapshot:update -- -g reordered',
    'fixtures/scenarios/unsorted/workspace.expected.json:4: not canonical (pretty JSON with 2-space indent, entries sorted by path, keys in the fixed order path, change, kind, ...; a final newline); rewrite it: npm run test:snapshot:update -- -g unsorted',
  ]);
});

test('stdout-json: every stdout.expected.jsonl line parses', async () => {
  const { dir: s } = await goodScenario('hello');
  await writeFile(join(s, 'stdout.expected.jsonl'), '{"a":1}\nDEBUG hello\n');
  expect(await messages('stdout-json')).toEqual([
    'fixtures/scenarios/hello/stdout.expected.jsonl:2: not JSON (every line must parse; regenerate it: npm run test:snapshot:update -- -g hello)',
  ]);
});

test('stdout-json, canonical-log, sidecars: bytes that are not UTF-8 are named, not read as U+FFFD', async () => {
  const { dir: s, projected } = await goodScenario('hello');
  const latin1 = (text: string) => Buffer.from(text, 'latin1');
  await writeFile(join(s, 'stdout.expected.jsonl'), latin1('{"a":1}\n{"t":"café"}\n'));
  // Replacing a character of the canonical log by a Latin-1 byte: the same text once decoded leniently.
  const log = projected.text.replace('Hel', 'H\u00e9l');
  expect(log).not.toBe(projected.text);
  await writeFile(join(s, 'session.jsonl'), latin1(log));
  const [hash, content] = Object.entries(projected.sidecars)[0]!;
  await writeFile(join(fx, 'sidecars', `${hash}.json`), latin1(content.replace('"', '"\u00e9')));
  const found = await checkFixtures(fx, opts());
  const of = (rule: string) => found.filter((v) => v.rule === rule).map((v) => v.message);
  expect(of('stdout-json')).toEqual([
    'fixtures/scenarios/hello/stdout.expected.jsonl:2: not valid UTF-8 (byte 0xe9 at column 10); regenerate it: npm run test:snapshot:update -- -g hello',
  ]);
  expect(of('canonical-log')).toEqual([
    expect.stringMatching(
      /^fixtures\/scenarios\/hello\/session\.jsonl:\d+: not valid UTF-8 \(byte 0xe9 at column \d+\); refresh cannot read it either; restore the committed one: git checkout -- fixtures\/scenarios\/hello\/session\.jsonl, or record it anew: npm run record -- hello$/,
    ),
  ]);
  expect(of('sidecars')).toContain(
    `fixtures/sidecars/${hash}.json:2: not valid UTF-8 (byte 0xe9 at column 4); refresh or re-record the scenario that references it`,
  );
});

test('canonical-log: a log that is not the canonical packed projection is rejected wherever it is', async () => {
  const { dir: s } = await goodScenario('hello');
  // The raw, unprojected form: envelopes kept, bulk inline.
  const raw = serializeLog([{ event: events()[0]! }, ...records()]);
  await writeFile(join(s, 'session.jsonl'), raw);
  await mkdir(join(s, 'workspace'));
  await writeFile(join(s, 'workspace', 'old.jsonl'), raw);
  const got = await messages('canonical-log');
  expect(got).toHaveLength(2);
  expect(got[0]).toMatch(
    /^fixtures\/scenarios\/hello\/session\.jsonl:\d+: not the canonical packed projection \(regenerate it: npm run refresh -- hello\)$/,
  );
  expect(got[1]).toMatch(
    /^fixtures\/scenarios\/hello\/workspace\/old\.jsonl:\d+: not the canonical packed projection/,
  );
});

test('sidecars: referenced ones exist; unreferenced, misnamed and duplicate ones are rejected', async () => {
  const { projected } = await goodScenario('hello');
  const [hash, content] = Object.entries(projected.sidecars)[0]!;
  await unlink(join(fx, 'sidecars', `${hash}.json`));
  const stray = '{"unused":true}\n';
  await writeFile(join(fx, 'sidecars', `${sidecarHash(stray)}.json`), stray);
  const wrong = 'f'.repeat(64);
  await writeFile(join(fx, 'sidecars', `${wrong}.json`), stray);
  const got = await messages('sidecars');
  expect(got).toContain(
    `fixtures/scenarios/hello/session.jsonl: references sidecar fixtures/sidecars/${hash}.json, which does not exist (refresh or re-record the scenario)`,
  );
  expect(got).toContain(
    `fixtures/sidecars/${sidecarHash(stray)}.json: not referenced by any session fixture (delete it)`,
  );
  expect(got).toContain(
    `fixtures/sidecars/${wrong}.json: duplicate of fixtures/sidecars/${sidecarHash(stray)}.json (same content; keep the file named by its sha256)`,
  );
  expect(got).toContain(
    `fixtures/sidecars/${wrong}.json: name does not match its content's sha256 (${sidecarHash(stray)}); re-record or refresh to rewrite it`,
  );
  expect(sidecarHash(content)).toBe(hash);
});

test('all-row-kinds: needs every row kind and equality with its source recording', async () => {
  const s = join(fx, 'scenarios', 'all-row-kinds');
  await mkdir(s);
  await writeFile(join(s, 'input.json'), JSON.stringify(input));
  await writeFile(join(s, 'stdout.expected.jsonl'), '');
  const header: LogRecord = { event: buildHeader({}) };
  const headerOnly = projectLog([header], { roots: {} });
  await writeFile(join(s, 'session.jsonl'), headerOnly.text);
  for (const [h, c] of Object.entries(headerOnly.sidecars))
    await writeFile(join(fx, 'sidecars', `${h}.json`), c);
  expect(await messages('all-row-kinds')).toEqual([
    'fixtures/scenarios/all-row-kinds/session.jsonl: lacks storage row kind(s) event, packed (it must hold every row kind)',
    'fixtures/scenarios/all-row-kinds/source.raw.jsonl: missing (the independent source recording the fixture is derived from)',
  ]);
  const full = projectLog([header, ...records()], { roots: {} });
  await writeFile(join(s, 'session.jsonl'), full.text);
  const source = [header, ...records()];
  await writeFile(join(s, 'source.raw.jsonl'), serializeLog(source));
  expect(await messages('all-row-kinds')).toEqual([]);
  await writeFile(join(s, 'source.raw.jsonl'), serializeLog(source.slice(0, -1)));
  expect(await messages('all-row-kinds')).toEqual([
    'fixtures/scenarios/all-row-kinds/session.jsonl: does not decode to the events of fixtures/scenarios/all-row-kinds/source.raw.jsonl (first difference at event 6 of 5/6); re-derive it from the source',
  ]);
});

test('secrets: key patterns, real home paths and the user name are rejected', async () => {
  const { dir: s } = await goodScenario('hello');
  await mkdir(join(s, 'workspace'));
  await writeFile(
    join(s, 'workspace', 'notes.md'),
    'token sk-0123456789abcdefABCD\nsee /home/alice/.ssh\nbob\nalice was here\nraw s3cr3t-key-value\n',
  );
  expect(await messages('secrets')).toEqual([
    'fixtures/scenarios/hello/workspace/notes.md:1: contains an API key (sk-...) (rule sk-key); re-record it (record mode scrubs it): npm run record -- hello',
    'fixtures/scenarios/hello/workspace/notes.md:2: contains the real home directory (rule real-home); re-record it (record mode scrubs it): npm run record -- hello',
    'fixtures/scenarios/hello/workspace/notes.md:4: contains the user name (rule user); re-record it (record mode scrubs it): npm run record -- hello',
    'fixtures/scenarios/hello/workspace/notes.md:5: contains the API key value (rule key-value); re-record it (record mode scrubs it): npm run record -- hello',
  ]);
});

test('secrets: a home path of a generic user name (/home/user) is not a real home path', async () => {
  const { dir: s } = await goodScenario('hello');
  await mkdir(join(s, 'workspace'));
  await writeFile(
    join(s, 'workspace', 'notes.md'),
    'edit /home/user/project/config.json\nsee /Users/runner/x\nbut /home/username/x\nmkdir "/Users/name/My Documents"\n',
  );
  expect(await messages('secrets')).toEqual([
    'fixtures/scenarios/hello/workspace/notes.md:3: contains a real home directory path (rule other-home); re-record it (record mode scrubs it): npm run record -- hello',
  ]);
});

test('secrets: recorded as root, the constant /root is no secret; a real home still is, whoever runs the guards', async () => {
  const { dir: s } = await goodScenario('hello');
  await mkdir(join(s, 'workspace'));
  await writeFile(
    join(s, 'workspace', 'notes.md'),
    '{"agent_name":"/root"} </root>\nread /root/.bashrc\nsee /home/alice/.ssh\n',
  );
  const asRoot = async (home: string) =>
    (await checkFixtures(fx, { ...opts(), home, user: 'root' }))
      .filter((v) => v.rule === 'secrets')
      .map((v) => v.message);
  // The guards of a root account (a CI container): /root names nobody, but another account's home does.
  expect(await asRoot('/root')).toEqual([
    'fixtures/scenarios/hello/workspace/notes.md:3: contains a real home directory path (rule other-home); re-record it (record mode scrubs it): npm run record -- hello',
  ]);
  // The same fixture checked on a developer's machine: their own home is named as theirs.
  expect(await asRoot('/home/alice')).toEqual([
    'fixtures/scenarios/hello/workspace/notes.md:3: contains the real home directory (rule real-home); re-record it (record mode scrubs it): npm run record -- hello',
  ]);
});

test('canonical-log with repoRoot: session logs anywhere in the repository are checked, not only under fixtures/', async () => {
  await goodScenario('hello');
  const raw = serializeLog([{ event: events()[0]! }, ...records()]);
  await mkdir(join(dir, 'agent', 'test'), { recursive: true });
  await writeFile(join(dir, 'agent', 'test', 'old.jsonl'), raw);
  await writeFile(join(dir, 'agent', 'test', 'notes.jsonl'), '{"not":"a session log"}\n');
  // Output and dependencies are not the repository's own files.
  await mkdir(join(dir, 'node_modules', 'dep'), { recursive: true });
  await writeFile(join(dir, 'node_modules', 'dep', 'log.jsonl'), raw);
  const withRepo = async () =>
    (await checkFixtures(fx, { ...opts(), repoRoot: dir }))
      .filter((v) => v.rule === 'canonical-log')
      .map((v) => v.message);
  const expected = [
    expect.stringMatching(
      /^agent\/test\/old\.jsonl:\d+: not the canonical packed projection \(a session log committed outside fixtures\/ must be a fixture too: write it with projectLog/,
    ),
  ];
  expect(await messages('canonical-log')).toEqual([]);
  expect(await withRepo()).toEqual(expected);

  // In a git checkout, what git ignores is skipped and untracked files count.
  execFileSync('git', ['init', '-q'], { cwd: dir });
  await writeFile(join(dir, '.gitignore'), 'node_modules/\nignored/\n');
  await mkdir(join(dir, 'ignored'));
  await writeFile(join(dir, 'ignored', 'raw.jsonl'), raw);
  expect(await withRepo()).toEqual(expected);
});

test('lone-surrogates: half of a surrogate pair in any fixture text is named with file, line, column and fix', async () => {
  const { dir: s, projected } = await goodScenario('emoji');
  const cut = '…😀'.slice(0, 2); // JSON.stringify writes it as …\ud83d
  await writeFile(
    join(s, 'input.json'),
    JSON.stringify({ ...input, steps: [...input.steps.slice(0, 2), { op: 'prompt', text: `hi ${cut}` }] }),
  );
  await writeFile(join(s, 'stdout.expected.jsonl'), `{"a":1}\n${JSON.stringify({ title: `Run: ${cut}` })}\n`);
  await writeFile(join(s, 'session.jsonl'), projected.text.replace('"Hel"', '"H\\ud83d"'));
  await writeFile(join(s, 'replay.override.json'), '{\n  "calls": ["ok \\uD83D\\uDE00", "\\ude00"]\n}\n');
  const [hash, content] = Object.entries(projected.sidecars)[0]!;
  await writeFile(join(fx, 'sidecars', `${hash}.json`), content.replace('careful', 'careful \\udbff'));
  const meaning =
    'half of a UTF-16 surrogate pair (text cut inside an emoji or other non-BMP character); strict JSON parsers such as serde_json reject the whole message';
  const handFix =
    'edit it: write the whole character (both escapes of the pair, e.g. \\ud83d\\ude00) or drop the half';
  const refresh =
    'fix the agent (it cut a text inside a character), then refresh: npm run refresh -- emoji (re-record with npm run record -- emoji if the recorded model text holds it)';
  expect(await messages('lone-surrogates')).toEqual([
    `fixtures/scenarios/emoji/input.json:1: a lone surrogate escape \\ud83d at column 108, ${meaning}; ${handFix}`,
    `fixtures/scenarios/emoji/stdout.expected.jsonl:2: a lone surrogate escape \\ud83d at column 19, ${meaning}; ${refresh}`,
    expect.stringMatching(
      new RegExp(
        `^fixtures/scenarios/emoji/session\\.jsonl:\\d+: a lone surrogate escape \\\\ud83d at column \\d+, ${escapeRe(meaning)}; ${escapeRe(refresh)}$`,
      ),
    ),
    `fixtures/scenarios/emoji/replay.override.json:2: a lone surrogate escape \\ude00 at column 33, ${meaning}; ${handFix}`,
    expect.stringMatching(
      new RegExp(
        `^fixtures/sidecars/${hash}\\.json:\\d+: a lone surrogate escape \\\\udbff at column \\d+, ${escapeRe(meaning)}; fix the agent prompt or tool description it came from, then refresh: npm run refresh$`,
      ),
    ),
  ]);
});

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
