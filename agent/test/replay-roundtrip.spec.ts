// Replay equals live, for this agent: a session recorded with a scripted model is replayed by the real
// replay plugin (agent/overlays/replay.json) in another cwd; the client sees the same updates and the
// re-persisted log holds the same events.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceRoots } from '@acp-snapshot/core';
import type { SessionEvent } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import {
  type AgentDirs,
  AgentProcess,
  makeDirs,
  readEvents,
  removeDirs,
  textCall,
  toolCall,
} from './agent-process.js';

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures argument as a destructuring pattern
test.afterEach(({}, testInfo) => removeDirs(testInfo));

const SHAPING = {
  compaction: { budgetTokens: 50, keepRecentMessages: 1 },
  permissions: { edit: 'ask', command: 'ask' },
};

async function session(agent: AgentProcess, dirs: AgentDirs) {
  await agent.initialize();
  const { sessionId } = await agent.agent.request('session/new', { cwd: dirs.cwd, mcpServers: [] });
  const stops: string[] = [];
  for (const text of ['read notes.txt and write out.txt', 'thanks']) {
    stops.push(
      (await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }))
        .stopReason,
    );
  }
  expect(await agent.close()).toBe(0);
  return { sessionId, stops };
}

test('a recorded session replays through llm-replay with identical updates and log events', async () => {
  const rec = makeDirs();
  writeFileSync(join(rec.cwd, 'notes.txt'), 'note\n');
  const live = AgentProcess.start(rec, {
    overlay: SHAPING,
    calls: [
      toolCall(
        [
          { id: 'c1', name: 'read_file', args: '{"path":"notes.txt"}' },
          { id: 'c2', name: 'write_file', args: '{"path":"out.txt","content":"note\\n"}' },
        ],
        'Read, then write.',
      ),
      // The tiny budget compacts before every step that has something older than the last message to fold.
      { purpose: 'compaction', ...textCall(['Summary: the user asked to copy notes.txt.']) },
      textCall(['Done: out.txt holds the note.']),
      { purpose: 'compaction', ...textCall(['Summary: copied notes.txt to out.txt.']) },
      textCall(['You are welcome.']),
    ],
  });
  const recorded = await session(live, rec);
  const recordedLog = join(rec.persist, `${recorded.sessionId}.jsonl`);

  const rep = makeDirs();
  writeFileSync(join(rep.cwd, 'notes.txt'), 'note\n');
  const shaping = join(rep.root, 'shaping.json');
  writeFileSync(shaping, JSON.stringify(SHAPING));
  const replay = AgentProcess.start(rep, {
    calls: [],
    overlayPaths: [join('agent', 'overlays', 'replay.json'), shaping],
    env: {
      ACP_SNAPSHOT_MODE: 'replay',
      ACP_SNAPSHOT_SCENARIO: 'roundtrip',
      ACP_SNAPSHOT_FIXTURE: recordedLog,
      ACP_SNAPSHOT_PERSIST_ROOT: rep.persist,
      ACP_SNAPSHOT_SPILL_ROOT: rep.spill,
    },
  });
  const replayed = await session(replay, rep);
  expect(replayed.stops).toEqual(recorded.stops);
  expect(replayed.sessionId).toBe(recorded.sessionId);

  const norm = <T>(v: T, d: AgentDirs) =>
    replaceRoots(v, { cwd: d.cwd, persist: d.persist, spill: d.spill, home: d.home });
  expect(norm(replay.updates, rep)).toEqual(norm(live.updates, rec));
  // The replay plugin's close line, as the harness reads it: every recorded call consumed.
  const line = replay.stderr.split('\n').findLast((l) => l.startsWith('llm-replay: {'));
  expect(JSON.parse(line!.slice('llm-replay: '.length))).toMatchObject({ scenario: 'roundtrip', total: 5 });
  expect(JSON.parse(line!.slice('llm-replay: '.length)).consumed).toHaveLength(5);

  const body = (events: SessionEvent[]) => events.filter((e) => e.type !== 'session/header');
  const liveEvents = await readEvents(rec.persist, recorded.sessionId);
  const replayEvents = await readEvents(rep.persist, replayed.sessionId);
  expect(norm(body(replayEvents), rep)).toEqual(norm(body(liveEvents), rec));
  const [liveHeader, replayHeader] = [norm(liveEvents[0]!, rec), norm(replayEvents[0]!, rep)];
  expect({ ...replayHeader, provider: undefined }).toEqual({ ...liveHeader, provider: undefined });
});
