import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildChunk,
  buildHeader,
  finishChunk,
  type LogRecord,
  makeRecords,
  serializeLog,
  textChunk,
} from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { pruneSidecars, referencedSidecars } from '../modes/sidecars.js';
import type { TestRoots } from '../roots/roots.js';
import {
  adoptRecordedProvider,
  harvestLog,
  observedHeaderOnlyLog,
  projectHarvested,
  recordedModelCalls,
} from './harvest.js';

const root = '/tmp/acp-snap-11111111-bbbbbb';
const roots: TestRoots = {
  root,
  cwd: `${root}/work`,
  persistRoot: `${root}/persist`,
  spillRoot: `${root}/spill`,
  home: `${root}/home`,
  tmp: `${root}.tmp`,
  aliases: { cwd: [`/private${root}/work`] },
};

function records(cwd: string): LogRecord[] {
  const header: LogRecord = { event: buildHeader({ cwd }) };
  const body = makeRecords(
    [
      { type: 'turn/start', turn: 0 },
      {
        type: 'llm/request',
        turn: 0,
        step: 0,
        purpose: 'turn',
        fingerprint: { hash: 'h', parts: { model: 'm', system: 's', tools: 't', params: 'p', messages: [] } },
      },
      buildChunk(0, 0, textChunk(`see ${root}/work/a.txt`)),
      buildChunk(0, 0, finishChunk('stop')),
      { type: 'turn/end', turn: 0, kind: 'completed' },
    ] as never,
    { startTs: 1_735_689_600_000 },
  ) as LogRecord[];
  return [header, ...body];
}

test('harvests the one session log, projects it with roots and aliases, counts model calls', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'harvest-test-'));
  try {
    expect(await harvestLog(dir)).toBeUndefined();
    await writeFile(join(dir, 'sess-1.jsonl'), serializeLog(records(roots.cwd)));
    const h = await harvestLog(dir);
    expect(h?.file).toBe(join(dir, 'sess-1.jsonl'));
    expect(h?.records).toHaveLength(6);
    const p = projectHarvested(h, roots);
    expect(p.text).toContain('{{cwd}}/a.txt');
    expect(p.text).not.toContain(root);
    expect(recordedModelCalls(p.text)).toBe(1);
    expect(recordedModelCalls('')).toBe(0);
    expect(projectHarvested(undefined, roots)).toEqual({ text: '', sidecars: {} });
    await writeFile(join(dir, 'sess-2.jsonl'), serializeLog(records(roots.cwd)));
    await expect(harvestLog(dir)).rejects.toThrow(
      'expected one session log under the persistence root, found 2: sess-1.jsonl, sess-2.jsonl (a scenario records exactly one session)',
    );
  } finally {
    await rm(dir, { recursive: true });
  }
});

test('sidecars no session fixture references are pruned', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sidecars-test-'));
  try {
    const p = projectHarvested({ records: records(roots.cwd) }, roots);
    await mkdir(join(dir, 'scenarios', 's'), { recursive: true });
    await mkdir(join(dir, 'sidecars'));
    await writeFile(join(dir, 'scenarios', 's', 'session.jsonl'), p.text);
    for (const [h, c] of Object.entries(p.sidecars)) await writeFile(join(dir, 'sidecars', `${h}.json`), c);
    const stale = 'e'.repeat(64);
    await writeFile(join(dir, 'sidecars', `${stale}.json`), '{}');
    expect([...(await referencedSidecars(dir))].sort()).toEqual(Object.keys(p.sidecars).sort());
    expect(await pruneSidecars(dir)).toEqual([join(dir, 'sidecars', `${stale}.json`)]);
    expect(await pruneSidecars(dir)).toEqual([]);
  } finally {
    await rm(dir, { recursive: true });
  }
});

test('a replayed header takes the recorded provider plugin, nothing else', () => {
  const rec =
    '{"type":"session/header","provider":{"plugin":"openai-compatible","model":"m1"},"cwd":"{{cwd}}"}\n{"event":{}}\n';
  const live =
    '{"type":"session/header","provider":{"plugin":"replay","model":"m2"},"cwd":"{{cwd}}"}\n{"event":{"x":1}}\n';
  expect(adoptRecordedProvider(live, rec)).toBe(
    '{"type":"session/header","provider":{"plugin":"openai-compatible","model":"m2"},"cwd":"{{cwd}}"}\n{"event":{"x":1}}\n',
  );
  expect(adoptRecordedProvider(live, undefined)).toBe(live);
  expect(adoptRecordedProvider('', rec)).toBe('');
});

test('an agent that persists no log gets the header-only log the harness observed, normalized', () => {
  const unknown = observedHeaderOnlyLog({ sessionId: '0f3a9c' }, roots);
  const header = JSON.parse(unknown.text);
  expect(header).toMatchObject({
    type: 'session/header',
    sessionId: '{{sessionId:1}}',
    agent: { name: 'unknown', version: 'unknown' },
    provider: { plugin: 'unknown', model: 'unknown' },
    cwd: '{{cwd}}',
    config: {},
  });
  expect(unknown.text.split('\n')).toEqual([expect.any(String), '']);
  // The agent's random id does not reach the fixture, so two recordings are byte-identical.
  expect(observedHeaderOnlyLog({ sessionId: 'another-random-id' }, roots)).toEqual(unknown);
  expect(Object.values(unknown.sidecars).sort()).toEqual([
    '{\n  "systemPrompt": [\n    ""\n  ]\n}\n',
    '{\n  "tools": []\n}\n',
  ]);
  const named = observedHeaderOnlyLog(
    { sessionId: 's', agentInfo: { name: 'other-agent', version: '2.1.0' } },
    roots,
  );
  expect(JSON.parse(named.text).agent).toEqual({ name: 'other-agent', version: '2.1.0' });
});
