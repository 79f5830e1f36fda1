// Text the agent cuts to a budget (a bash title, a read_file line, a grep line), with an emoji exactly at
// each cut, through the real agent process: what the client and the model get is well-formed, and
// the emoji is left out whole.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findLoneSurrogate } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import { AgentProcess, makeDirs, readEvents, removeDirs, textCall, toolCall } from './agent-process.js';

// biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures argument as a destructuring pattern
test.afterEach(({}, testInfo) => removeDirs(testInfo));

test('an emoji at the cut of a bash title, a read_file line and a grep line is left out whole, on the wire and for the model', async () => {
  const dirs = makeDirs();
  // The default budgets: 60 title characters (59 and the ellipsis), 2000 per read_file line, 300 per grep line.
  const command = `echo ${'c'.repeat(53)}🚀 done`; // 🚀 at 58
  const long = `${'a'.repeat(1999)}🇯🇵 end`; // the flag's first regional indicator at 1999
  const match = `needle ${'b'.repeat(292)}👩‍💻 rest`; // the ZWJ sequence at 299
  writeFileSync(join(dirs.cwd, 'long.txt'), `${long}\n`);
  writeFileSync(join(dirs.cwd, 'match.txt'), `${match}\n`);
  const agent = AgentProcess.start(dirs, {
    calls: [
      toolCall([
        { id: 'b', name: 'bash', args: JSON.stringify({ command }) },
        { id: 'r', name: 'read_file', args: '{"path":"long.txt"}' },
        { id: 'g', name: 'grep', args: '{"pattern":"needle","path":"match.txt"}' },
      ]),
      textCall(['Done 🎉']),
    ],
  });
  const { sessionId, stopReason } = await agent.firstPrompt(dirs.cwd, 'go');
  expect(stopReason).toBe('end_turn');
  expect(await agent.close()).toBe(0);

  const problems = agent.stdoutLines.flatMap((line, i) => {
    const lone = findLoneSurrogate(line);
    return lone ? [`stdout line ${i + 1}, column ${lone.column}`] : [];
  });
  expect(problems).toEqual([]);
  const shown = { title: `Run: echo ${'c'.repeat(53)}…` };
  const read = `1\t${'a'.repeat(1999)} [line truncated: 2007 characters]`;
  const grep = `match.txt:1:needle ${'b'.repeat(292)} [line truncated]\n`;
  const updates = agent.updates.map((u) => u.update);
  expect(updates.find((u) => u.sessionUpdate === 'tool_call' && u.toolCallId === 'b')).toMatchObject(shown);
  const resultOf = (id: string) =>
    updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === id && u.content);
  expect(resultOf('r')).toMatchObject({ content: [{ content: { type: 'text', text: read } }] });
  expect(resultOf('g')).toMatchObject({ content: [{ content: { type: 'text', text: grep } }] });

  const toModel = new Map(
    agent
      .requests()[1]!
      .request.messages.flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m.content]] : [])),
  );
  expect([toModel.get('r'), toModel.get('g')]).toEqual([read, grep]);
  const log = JSON.stringify(await readEvents(dirs.persist, sessionId));
  expect(findLoneSurrogate(log)).toBeUndefined();
});
