// Every surface hides the roots the same way: the request fingerprint (agent side), the fixture
// projection, stdout normalization and record-mode scrubbing. Property-tested over random roots and
// random text that embeds them anywhere, streamed whole or in pieces.
import { fingerprintRequest, hydrateText, type LlmRequest, replaceRoots } from '@acp-snapshot/core';
import { scrub as scrubSecrets } from '@acp-snapshot/model-http';
import {
  buildChunk,
  buildHeader,
  makeRecords,
  parseLogText,
  projectLog,
  type SessionEvent,
  userMessage,
} from '@acp-snapshot/session-log';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { normalizeStdout } from '../normalize/normalize.js';

/** One scenario's roots in one run (a generated test root; the machine's home and user). */
const runRoots = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9]{6}$/),
    fc.constantFrom('/home/dana', '/home/alice', '/Users/bob smith'),
    fc.constantFrom(undefined, 'alice', 'bob'),
  )
  .map(([rand, realHome, user]) => {
    const root = `/tmp/acp-snap-0a1b2c3d-${rand}`;
    return {
      cwd: `${root}/work`,
      persist: `${root}/persist`,
      spill: `${root}/spill`,
      home: `${root}/home`,
      root,
      realHome,
      ...(user ? { user } : {}),
    } as Record<string, string>;
  });

/** Text embedding roots at sentence ends, in JSON strings, before . - / and quotes, next to emoji and CJK. */
const text = (roots: Record<string, string>) =>
  fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...Object.values(roots)) },
        fc.constantFrom(
          '.',
          '-',
          '/',
          '"',
          "'",
          ' ',
          '.txt',
          '/a.md',
          '\n',
          '😀',
          '文件',
          '{"path":"',
          '"}',
          '. ',
        ),
        fc.string({ maxLength: 5 }).filter((s) => !s.includes('{{')),
      ),
      { minLength: 1, maxLength: 10 },
    )
    .map((xs) => xs.join(''));

/** `t` cut at the given positions. */
function split(t: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (t.length + 1)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const c of [...at, t.length]) {
    parts.push(t.slice(from, c));
    from = c;
  }
  return parts.filter((p, i) => p !== '' || i === 0);
}

const request = (content: string): LlmRequest => ({
  model: 'm',
  system: '',
  messages: [{ role: 'user', content }],
  tools: [],
  params: {},
  purpose: 'turn',
});

const chunkLine = (sessionId: string, t: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } },
    },
  });

test('property: fingerprint, projection, stdout and scrubbing give the same placeholder text, whole or streamed', () => {
  fc.assert(
    fc.property(
      runRoots.chain((roots) =>
        fc.tuple(fc.constant(roots), text(roots), fc.array(fc.nat(), { maxLength: 5 })),
      ),
      ([roots, t, cuts]) => {
        const expected = replaceRoots(t, roots);
        // Fingerprint: the agent hashes the request with its roots replaced; equal to hashing the hidden text.
        expect(fingerprintRequest(request(t), roots).hash).toBe(fingerprintRequest(request(expected)).hash);
        // Projection of a whole message, and of the same text streamed as chunks.
        const parts = split(t, cuts);
        const events: SessionEvent[] = [
          buildHeader({ cwd: roots.cwd! }),
          userMessage(1, t),
          ...parts.map((p) => buildChunk(1, 1, { type: 'text', text: p })),
        ];
        const projected = parseLogText(projectLog(makeRecords(events), { roots }).text).records.map(
          (r) => r.event,
        );
        const committed = projected.find((e) => e.type === 'message/committed');
        expect(committed?.type === 'message/committed' && committed.message.content).toBe(expected);
        const logPieces = projected.flatMap((e) =>
          e.type === 'assistant/chunk' && e.chunk.type === 'text' ? [e.chunk.text] : [],
        );
        // Stdout: the same fragments as agent_message_chunk lines, normalized as one streamed run.
        const stdout = normalizeStdout(
          parts.map((p) => ({ text: chunkLine('s-1234', p), process: 0 })),
          { roots },
        ).map(
          (l) =>
            (JSON.parse(l) as { params: { update: { content: { text: string } } } }).params.update.content
              .text,
        );
        expect(stdout).toEqual(logPieces);
        expect(logPieces.map((p) => hydrateText(p, roots))).toEqual(parts);
        // The whole text on stdout, and scrubbing (which knows only the machine's home and user name; and
        // anyone else's home, as `/home/danaalice` beside `/home/dana`, which the roots leave).
        const [whole] = normalizeStdout([{ text: chunkLine('s-1234', t), process: 0 }], { roots });
        expect(whole).toContain(JSON.stringify(expected).slice(1, -1));
        const machineOnly = replaceRoots(t, { realHome: roots.realHome, user: roots.user });
        const scrubbed = scrubSecrets(t, { values: [], home: roots.realHome!, user: roots.user! });
        if (scrubSecrets(machineOnly) === machineOnly) expect(scrubbed).toBe(machineOnly);
        expect(scrubSecrets(scrubbed, { home: roots.realHome!, user: roots.user! })).toBe(scrubbed);
      },
    ),
    { numRuns: 300 },
  );
});
