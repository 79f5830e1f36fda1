import { RootReplacer } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { cutFrames, eventEnds, frameBytes, hydrateFrame, scrubFrames, toFrame } from './frames.js';
import { cannedAnswer } from './testing/fake-upstream.js';
import { answerDeltas, FORMATS } from './testing/requests.js';

const CWD_A = '/tmp/acp-mh-AAAAAAAA/work';
const CWD_B = '/tmp/acp-mh-BBBBBBBB/work';

test('SSE events end at a blank line, whichever line terminator (LF, CRLF, CR) the upstream uses', () => {
  const ends = (s: string) => eventEnds(Buffer.from(s));
  expect(ends('data: a\n\ndata: b\n\n')).toEqual([9, 18]);
  expect(ends('data: a\r\n\r\ndata: b\r\n\r\n')).toEqual([11, 22]);
  expect(ends('data: a\r\rdata: b\r\r')).toEqual([9, 18]);
  expect(ends('event: x\ndata: a\n\n: comment\n\ndata: tail')).toEqual([18, 29, 39]);
  expect(ends('')).toEqual([]);
});

test('a stream is cut at event ends whatever the reads were; a frame takes the time of the read holding its end', () => {
  const body = Buffer.from('data: 🎉\n\ndata: 你好\n\n');
  const reads = [
    { bytes: body.subarray(0, 8), atMs: 3 },
    { bytes: body.subarray(8, 14), atMs: 7 },
    { bytes: body.subarray(14), atMs: 9 },
  ];
  expect(cutFrames(reads, 'events', true, true)).toEqual([
    { text: 'data: 🎉\n\n', atMs: 7 },
    { text: 'data: 你好\n\n', atMs: 9 },
  ]);
  expect(cutFrames(reads, 'events', false, false)).toEqual([{ text: body.toString() }]);
  // As received: the first read ends inside the emoji, so it is not UTF-8 alone and is kept as base64.
  const received = cutFrames(reads, 'received', true, false);
  expect(received[0]).toEqual({ base64: body.subarray(0, 8).toString('base64') });
  expect(Buffer.concat(received.map(frameBytes))).toEqual(body);
});

test('property: frames hold the bytes exactly, text or base64', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      expect(frameBytes(toFrame(bytes))).toEqual(Buffer.from(bytes));
    }),
  );
});

for (const format of FORMATS) {
  test(`${format}: a cwd streamed over two events becomes slice placeholders, and hydrates into another run's cwd`, () => {
    const a = cannedAnswer(format, answerDeltas(CWD_A), true).frames.map((text) => ({ text }));
    const scrubbed = scrubFrames(a, RootReplacer.of({ cwd: CWD_A }));
    const text = scrubbed.map((f) => ('text' in f ? f.text : '')).join('');
    expect(text).not.toContain('acp-mh-');
    expect(text).toContain('"{{cwd[0:11]}}"');
    expect(text).toContain('"{{cwd[11:]}}/notes.txt"');
    const b = cannedAnswer(format, answerDeltas(CWD_B), true).frames.map((t) => ({ text: t }));
    expect(scrubbed.map((f) => hydrateFrame(f, { cwd: CWD_B }))).toEqual(b);
    expect(scrubbed.map((f) => hydrateFrame(f, { cwd: CWD_A }))).toEqual(a);
  });
}

// A directory name may hold a quote or a backslash; JSON spells them escaped.
const CWD_ODD = '/tmp/acp-mh-q"\\uo/work';

for (const format of FORMATS) {
  test(`${format}: hydrating a cwd that holds a quote and a backslash keeps every payload valid JSON`, () => {
    const scrubbed = scrubFrames(
      cannedAnswer(format, answerDeltas(CWD_A), true).frames.map((text) => ({ text })),
      RootReplacer.of({ cwd: CWD_A }),
    );
    const odd = cannedAnswer(format, answerDeltas(CWD_ODD), true).frames.map((text) => ({ text }));
    expect(scrubbed.map((f) => hydrateFrame(f, { cwd: CWD_ODD }))).toEqual(odd);
  });
}

test('a payload that is not JSON gets the root as it is spelled', () => {
  expect(hydrateFrame({ text: 'data: not json {{cwd}}/x\n\n' }, { cwd: CWD_ODD })).toEqual({
    text: `data: not json ${CWD_ODD}/x\n\n`,
  });
});

test('scrubbing keeps the raw spelling around a root (spaces, escapes) and leaves base64 frames alone', () => {
  const frames = [
    { text: `data: { "text" : "see ${CWD_A}/a.txt", "n": "\\u00e9" }\n\n` },
    { text: `data: not json ${CWD_A}\n\n` },
    { base64: Buffer.from(CWD_A).toString('base64') },
    { text: JSON.stringify({ output: `${CWD_A}/b` }) },
  ];
  expect(scrubFrames(frames, RootReplacer.of({ cwd: CWD_A }))).toEqual([
    { text: 'data: { "text" : "see {{cwd}}/a.txt", "n": "\\u00e9" }\n\n' },
    { text: 'data: not json {{cwd}}\n\n' },
    frames[2],
    { text: '{"output":"{{cwd}}/b"}' },
  ]);
});

// Lower-case letters that spell the keys of every format's events ("text", "type", "delta"...).
const CWD_KEYS = '/tmp/acp-mh-texttype/work';
const CWD_Q = '/tmp/acp-mh-qqqqqqqq/work';

/** The keys of each JSON payload of the frames, in order. */
function payloadKeys(frames: ReadonlyArray<{ text?: string }>): string[][] {
  const keys = (v: unknown): string[] =>
    v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [k, ...keys(x)]) : [];
  return frames.flatMap((f) =>
    [...(f.text ?? '').matchAll(/^data: ?(\{.*)$/gm)].map((m) => keys(JSON.parse(m[1]!))),
  );
}

for (const format of FORMATS) {
  test(`${format}: a cwd streamed one character per event, its letters those of the keys, scrubs and hydrates exactly`, () => {
    const answer = (cwd: string) =>
      cannedAnswer(format, [...`Look 🔍 at ${cwd}/notes.txt, then text me.`], true).frames.map((text) => ({
        text,
      }));
    const a = answer(CWD_KEYS);
    const scrubbed = scrubFrames(a, RootReplacer.of({ cwd: CWD_KEYS }));
    const text = scrubbed.map((f) => ('text' in f ? f.text : '')).join('');
    expect(text).not.toContain('acp-mh-');
    // Only values changed: a piece "t" is not found in the key "text".
    expect(payloadKeys(scrubbed as Array<{ text?: string }>)).toEqual(payloadKeys(a));
    expect(scrubbed.map((f) => hydrateFrame(f, { cwd: CWD_KEYS }))).toEqual(a);
    expect(scrubbed.map((f) => hydrateFrame(f, { cwd: CWD_Q }))).toEqual(answer(CWD_Q));
  });
}
