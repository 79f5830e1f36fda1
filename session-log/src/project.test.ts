import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sidecarHash } from '@acp-snapshot/core';
import { anyText } from '@acp-snapshot/core/testing';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import {
  buildChunk,
  buildHeader,
  makeRecords,
  textChunk,
  toolCall,
  toolResult,
  turnStart,
  userMessage,
} from './builders.js';
import { parseLogText } from './codec.js';
import type { LogRecord, SessionHeader } from './events.js';
import { inlineSidecars, projectLog, promptSidecar, toolsSidecar } from './project.js';
import { anyRecords } from './testing/arbitraries.js';

test('projection drops envelopes, replaces the cwd and its aliases, and moves bulk to sidecars', () => {
  const base = mkdtempSync(join(tmpdir(), 'session-log-proj-'));
  const real = join(base, 'real-cwd');
  mkdirSync(real);
  const link = join(base, 'link-cwd');
  symlinkSync(real, link);
  const realResolved = realpathSync(real);
  const header = buildHeader({ cwd: link, systemPrompt: `You work in ${link}.\nBe brief.` });
  const records = makeRecords([
    header,
    turnStart(1),
    userMessage(1, `read ${link}/a.txt and ${realResolved}/b.txt`),
    buildChunk(1, 1, textChunk(`see ${realResolved}/b.txt`)),
    buildChunk(1, 1, textChunk('!')),
    toolCall(1, 1, 'c1', 'read_file', { path: `${link}/a.txt` }),
    toolResult(1, 1, 'c1', 'contents', 'completed', { path: `${link}/spill/1.txt`, bytes: 9 }),
  ]);
  const { text, sidecars } = projectLog(records, { roots: { cwd: link } });
  expect(text).not.toContain(base);
  const lines = text.trimEnd().split('\n');
  const promptHash = sidecarHash(promptSidecar('You work in {{cwd}}.\nBe brief.'));
  const toolsHash = sidecarHash(toolsSidecar(header.tools as never));
  expect(JSON.parse(lines[0]!)).toMatchObject({
    type: 'session/header',
    cwd: '{{cwd}}',
    systemPrompt: { sidecar: promptHash },
    tools: { sidecar: toolsHash },
  });
  expect(lines[0]).not.toContain('"seq"');
  expect(lines.slice(1)).toEqual([
    '{"event":{"type":"turn/start","turn":1}}',
    '{"event":{"type":"message/committed","turn":1,"message":{"role":"user","content":"read {{cwd}}/a.txt and {{cwd}}/b.txt"}}}',
    '{"turn":1,"step":1,"chunks":["see {{cwd}}/b.txt","!"]}',
    '{"event":{"type":"tool/call","turn":1,"step":1,"toolCallId":"c1","name":"read_file","arguments":"{\\"path\\":\\"{{cwd}}/a.txt\\"}"}}',
    '{"event":{"type":"tool/result","turn":1,"step":1,"toolCallId":"c1","status":"completed","preview":"contents","spill":{"path":"{{cwd}}/spill/1.txt","bytes":9}}}',
  ]);
  // Sidecars are pretty, line-per-line readable JSON named by their sha256.
  expect(sidecars[promptHash]).toBe(
    '{\n  "systemPrompt": [\n    "You work in {{cwd}}.",\n    "Be brief."\n  ]\n}\n',
  );
  expect(Object.keys(sidecars).sort()).toEqual([promptHash, toolsHash].sort());
  for (const [hash, content] of Object.entries(sidecars)) expect(sidecarHash(content)).toBe(hash);

  // Readers that need the prompt resolve the references from a sidecar directory (or the map).
  const dir = join(base, 'sidecars');
  mkdirSync(dir);
  for (const [hash, content] of Object.entries(sidecars)) writeFileSync(join(dir, `${hash}.json`), content);
  const projectedHeader = parseLogText(text).records[0]!.event as SessionHeader;
  const inlined = inlineSidecars(projectedHeader, dir);
  expect(inlined.systemPrompt).toBe('You work in {{cwd}}.\nBe brief.');
  expect(inlined.tools).toEqual(header.tools);
  expect(inlineSidecars(projectedHeader, sidecars)).toEqual(inlined);
});

test('a sidecar that is missing or edited by hand is reported with what to do', () => {
  const dir = mkdtempSync(join(tmpdir(), 'session-log-side-'));
  const { text, sidecars } = projectLog(makeRecords([buildHeader()]), { roots: {} });
  const header = parseLogText(text).records[0]!.event as SessionHeader;
  const promptRef = (header.systemPrompt as { sidecar: string }).sidecar;
  expect(() => inlineSidecars(header, dir)).toThrow(
    `${join(dir, `${promptRef}.json`)}: sidecar referenced by the session header is missing; re-record or refresh the scenario`,
  );
  for (const [hash, content] of Object.entries(sidecars))
    writeFileSync(join(dir, `${hash}.json`), `${content} `);
  expect(() => inlineSidecars(header, dir)).toThrow(
    'content does not match its sha256 name (edited by hand?)',
  );
});

test('property: the projection of a projection is itself, with no new sidecars', () => {
  const cwd = '/tmp/acp-proj-test/cwd';
  // A root starts a path: after a space (not glued to a longer name, where it is no root: roots.test.ts).
  const withRoot = fc
    .tuple(anyRecords, anyText(10))
    .map(([records, s]): LogRecord[] =>
      records.map((r) =>
        r.event.type === 'message/committed' && r.event.message.role === 'user'
          ? { ...r, event: { ...r.event, message: { role: 'user', content: `${s} ${cwd}/x${s}` } } }
          : r,
      ),
    );
  fc.assert(
    fc.property(withRoot, (records) => {
      const once = projectLog(records, { roots: { cwd } });
      expect(once.text).not.toContain(cwd);
      const twice = projectLog(parseLogText(once.text).records, { roots: { cwd } });
      expect(twice.text).toBe(once.text);
      expect(twice.sidecars).toEqual({});
    }),
    { numRuns: 100 },
  );
});
