// Resume is seamless: a session continued in a new process after session/load logs and streams the same as one
// that ran uninterrupted.

import { join } from 'node:path';
import { projectLog, readLogFile } from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import { type AgentDirs, AgentProcess, makeDirs, removeDirs, textCall } from './agent-process.js';

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures argument as a destructuring pattern
test.afterEach(({}, testInfo) => removeDirs(testInfo));

const calls = [textCall(['First ', 'answer.']), textCall(['Second ', 'answer.'])];
const prompts = ['first question', 'second question'];

async function projected(
  dirs: AgentDirs,
  sessionId: string,
): Promise<{ resumes: number; lines: string[]; sidecars: Record<string, string> }> {
  const { records } = await readLogFile(join(dirs.persist, `${sessionId}.jsonl`));
  const boundaries = records.filter((r) => r.event.type === 'boundary' && r.event.kind === 'resume');
  const body = records.filter((r) => !boundaries.includes(r));
  const roots = { cwd: dirs.cwd, spill: dirs.spill, persist: dirs.persist, home: dirs.home };
  const { text, sidecars } = projectLog(body, { roots });
  return { resumes: boundaries.length, lines: text.trimEnd().split('\n'), sidecars };
}

test('resume is seamless: logs and second-prompt updates equal an uninterrupted run', async () => {
  const a = makeDirs();
  const one = AgentProcess.start(a, { name: 'uninterrupted', calls });
  await one.initialize();
  const { sessionId: idA } = await one.agent.request('session/new', { cwd: a.cwd, mcpServers: [] });
  await one.agent.request('session/prompt', {
    sessionId: idA,
    prompt: [{ type: 'text', text: prompts[0]! }],
  });
  const before = one.updates.length;
  await one.agent.request('session/prompt', {
    sessionId: idA,
    prompt: [{ type: 'text', text: prompts[1]! }],
  });
  const secondA = one.updates.slice(before).map((u) => u.update);
  expect(await one.close()).toBe(0);

  const b = makeDirs();
  const first = AgentProcess.start(b, { name: 'first', calls: [calls[0]!] });
  await first.initialize();
  const { sessionId: idB } = await first.agent.request('session/new', { cwd: b.cwd, mcpServers: [] });
  await first.agent.request('session/prompt', {
    sessionId: idB,
    prompt: [{ type: 'text', text: prompts[0]! }],
  });
  expect(await first.close()).toBe(0);
  const second = AgentProcess.start(b, { name: 'second', calls: [calls[1]!] });
  await second.initialize();
  await second.agent.request('session/load', { sessionId: idB, cwd: b.cwd, mcpServers: [] });
  const replayed = second.updates.length;
  await second.agent.request('session/prompt', {
    sessionId: idB,
    prompt: [{ type: 'text', text: prompts[1]! }],
  });
  const secondB = second.updates.slice(replayed).map((u) => u.update);
  expect(await second.close()).toBe(0);

  expect(idB).toBe(idA);
  expect(secondB).toEqual(secondA);
  const live = await projected(a, idA);
  const resumed = await projected(b, idB);
  expect(live.resumes).toBe(0);
  // At most one resume boundary marks where the second process took over.
  expect(resumed.resumes).toBeLessThanOrEqual(1);
  expect(resumed.lines).toEqual(live.lines);
  expect(resumed.sidecars).toEqual(live.sidecars);
  // The projection carries both turns' content, so the equality above is not vacuous.
  expect(live.lines.join('\n')).toContain('Second ');
  expect(live.lines.join('\n')).toContain('second question');
});
