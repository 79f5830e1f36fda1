import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildChunk,
  buildHeader,
  finishChunk,
  openLogAppender,
  readLogFile,
  type SessionEvent,
  textChunk,
} from '@acp-snapshot/session-log';
import { runCorpusScenario } from '../modes/scenario-run.js';
import { scenarioPaths } from '../scenario/corpus.js';
import { expect, test } from '../testing/suite-test.js';
import { nonCanonicalLogProblem, persistedLogProblem, promisesCanonicalLog } from './log-file.js';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let dir: string;
test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'log-file-test-'));
});
test.afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const events: SessionEvent[] = [
  buildHeader({ sessionId: 's1', cwd: '/w' }),
  { type: 'turn/start', turn: 1 },
  buildChunk(1, 1, textChunk('Hel')),
  buildChunk(1, 1, textChunk('lo')),
  buildChunk(1, 1, finishChunk('stop')),
  { type: 'turn/end', turn: 1, kind: 'completed' },
];

/** A log written by the live appender, closed with or without its compaction. */
async function writeLog(name: string, opts: { compactOnClose: boolean; compression: 'gzip' | 'none' }) {
  const file = join(dir, name);
  const log = await openLogAppender(file, opts);
  for (const [i, e] of events.entries()) await log.append(e, 1000 + i);
  await log.close();
  return { file, records: (await readLogFile(file)).records };
}

test('a log left as its append-only journal fails naming the file, the first non-canonical line and what was expected', async () => {
  const journal = await writeLog('s1.jsonl', { compactOnClose: false, compression: 'none' });
  const text = await readFile(journal.file, 'utf8');
  expect(nonCanonicalLogProblem(journal.file, text, journal.records)).toBe(
    `${journal.file}:3: the agent's session log is not in the canonical packed form its persistence promises after a graceful close (session-log: the appender's close() compacts the file: every run of chunks packed, keys in schema order).\n` +
      `  line 3 is:       {"seq":2,"ts":1002,"event":{"type":"assistant/chunk","turn":1,"step":1,"chunk":{"type":"text","text":"Hel"}}}\n` +
      `  expected to be:  {"seq":2,"ts":1002,"turn":1,"step":1,"dt":[1,1],"chunks":["Hel","lo",["finish","stop"]]}\n` +
      'Does the agent close its session logs (and await the close) when stdin closes?',
  );
  expect(await persistedLogProblem(journal, [0])).toMatch(
    /s1\.jsonl:3: the agent's session log is not in the canonical/,
  );
  // A gzip journal (one member per event) is judged by its decompressed text.
  const gz = await writeLog('s2.jsonl.gz', { compactOnClose: false, compression: 'gzip' });
  expect(await persistedLogProblem(gz, [0, 0])).toMatch(
    /s2\.jsonl\.gz:3: .*not in the canonical packed form/,
  );
});

test('a compacted log passes, plain or gzip; a truncated one names its end', async () => {
  for (const compression of ['none', 'gzip'] as const) {
    const packed = await writeLog(`p.${compression}.jsonl`, { compactOnClose: true, compression });
    expect(await persistedLogProblem(packed, [0])).toBeUndefined();
  }
  const packed = await writeLog('t.jsonl', { compactOnClose: true, compression: 'none' });
  const text = await readFile(packed.file, 'utf8');
  const cut = text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1);
  expect(nonCanonicalLogProblem('t.jsonl', cut, packed.records)).toMatch(
    /^t\.jsonl:4: .*\n {2}line 4 is: {7}\(end of file\)\n {2}expected to be: {2}\{"seq":5,"ts":1005,"event":\{"type":"turn\/end"/,
  );
});

test('only a run whose every process exited 0 promises a compacted log', () => {
  expect(promisesCanonicalLog([0])).toBe(true);
  expect(promisesCanonicalLog([0, 0])).toBe(true);
  // A killed or crashed process may leave its journal as it was; the harness cannot tell whether a later one rewrote it.
  expect(promisesCanonicalLog(['SIGKILL', 0])).toBe(false);
  expect(promisesCanonicalLog([0, 3])).toBe(false);
  expect(promisesCanonicalLog([])).toBe(false);
});

test('through the harness: an agent that never compacts its log fails the run; the same agent compacting passes', async ({
  runDirs,
}) => {
  const paths = scenarioPaths(dir, 'journal-log');
  await mkdir(paths.dir, { recursive: true });
  await writeFile(
    paths.input,
    JSON.stringify({
      description: 'one prompt against an agent that persists its log',
      steps: [{ op: 'initialize' }, { op: 'new_session' }, { op: 'prompt', text: 'hi' }],
    }),
  );
  const agent = (mode: string) => [
    process.execPath,
    join(import.meta.dirname, '..', 'testing', 'agents', 'fake-agent.mjs'),
    mode,
  ];
  const journal = await runCorpusScenario({
    paths,
    mode: 'record',
    dirs: runDirs,
    agentCommand: agent('journal'),
  });
  expect(journal.logSource).toBe('agent');
  const file = join(journal.roots.persistRoot, `${journal.result.sessionId}.jsonl`);
  expect(journal.result.problems).toEqual([
    expect.stringMatching(
      new RegExp(
        `^journal-log: ${escapeRegExp(file)}:3: the agent's session log is not in the canonical packed form its persistence promises after a graceful close .*\n {2}line 3 is: {7}\\{"seq":2,"ts":2,"event":\\{"type":"assistant/chunk".*\n {2}expected to be: {2}\\{"seq":2,"ts":2,"turn":1,"step":1,"dt":\\[1,1\\],"chunks":\\["Hel","lo",\\["finish","stop"\\]\\]\\}\n`,
      ),
    ),
  ]);
  // The records themselves are fine: the projected log would pass; only the file on disk breaks the promise.
  expect(journal.projected.text).toContain('"chunks":["Hel","lo",["finish","stop"]]');
  const packed = await runCorpusScenario({
    paths,
    mode: 'record',
    dirs: runDirs,
    agentCommand: agent('packed'),
  });
  expect(packed.result.problems).toEqual([]);
  expect(packed.projected.text).toBe(
    journal.projected.text.replaceAll(journal.result.sessionId!, packed.result.sessionId!),
  );
});
