import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import {
  buildChunk,
  buildHeader,
  finishChunk,
  llmRequest,
  makeRecords,
  reasoningChunk,
  textChunk,
  toolCallArgs,
  toolCallStart,
  turnEnd,
  turnStart,
  userMessage,
} from './builders.js';
import {
  decodeRows,
  encodeRows,
  encodeSingleRow,
  LogFormatError,
  parseLogText,
  serializeLog,
} from './codec.js';
import type { LogRecord } from './events.js';
import type { PackedRow, Row } from './rows.js';
import { anyRecords } from './testing/arbitraries.js';

const usage = { promptTokens: 10, completionTokens: 3, totalTokens: 13 };
const sample = makeRecords([
  buildHeader(),
  turnStart(1),
  userMessage(1, 'hi'),
  llmRequest(1, 1),
  buildChunk(1, 1, reasoningChunk('think')),
  buildChunk(1, 1, textChunk('Hel')),
  buildChunk(1, 1, textChunk('lo 😀')),
  buildChunk(1, 1, toolCallStart(0, 'call_1', 'read_file')),
  buildChunk(1, 1, toolCallArgs(0, '{"path":"a"}')),
  buildChunk(1, 1, finishChunk('tool_calls', usage)),
  buildChunk(1, 2, textChunk('next step')),
  turnEnd(1),
]);

test('canonical text: header row, single-event rows, one packed row per (turn, step) run', () => {
  const lines = serializeLog(sample).trimEnd().split('\n');
  expect(lines).toHaveLength(7);
  expect(lines[0]).toMatch(
    /^\{"seq":0,"ts":1735689600000,"type":"session\/header","format":"acp-snapshot\/session-log"/,
  );
  expect(lines[1]).toBe('{"seq":1,"ts":1735689600001,"event":{"type":"turn/start","turn":1}}');
  expect(lines[4]).toBe(
    '{"seq":4,"ts":1735689600004,"turn":1,"step":1,"dt":[1,1,1,1,1],"chunks":[["reasoning","think"],"Hel","lo 😀",' +
      '["tool_call_start",0,"call_1","read_file"],["tool_call_args",0,"{\\"path\\":\\"a\\"}"],' +
      '["finish","tool_calls",{"promptTokens":10,"completionTokens":3,"totalTokens":13}]]}',
  );
  expect(lines[5]).toBe('{"seq":10,"ts":1735689600010,"turn":1,"step":2,"dt":[],"chunks":["next step"]}');
  expect(parseLogText(lines.join('\n')).records).toEqual(sample);
});

test('records without envelopes encode as projected rows', () => {
  const projected = sample.map((r) => ({ event: r.event }));
  const lines = serializeLog(projected).trimEnd().split('\n');
  expect(lines[1]).toBe('{"event":{"type":"turn/start","turn":1}}');
  expect(lines[4]).toMatch(/^\{"turn":1,"step":1,"chunks":\[\["reasoning","think"\],"Hel"/);
  expect(parseLogText(lines.join('\n')).records).toEqual(projected);
});

test('event keys come out in schema order whatever order they went in', () => {
  const scrambled: LogRecord[] = [
    { ts: 5, seq: 0, event: buildHeader() },
    { event: { turn: 1, type: 'turn/start' } as never, ts: 6, seq: 1 },
  ];
  expect(serializeLog(scrambled).split('\n')[1]).toBe(
    '{"seq":1,"ts":6,"event":{"type":"turn/start","turn":1}}',
  );
});

test('encoding rejects an invalid record, naming its index and field', () => {
  const bad = [...sample.slice(0, 2), { seq: 2, ts: 3, event: { type: 'turn/start', turn: -1 } as never }];
  expect(() => encodeRows(bad)).toThrow('cannot encode record #2 (turn/start): turn: Too small');
  expect(() => encodeRows(sample.slice(1))).toThrow(
    'the first record must be the session header, got turn/start',
  );
  expect(() => encodeRows([sample[0]!, { seq: 1, ts: 1.5, event: turnStart(1) }])).toThrow(
    'cannot encode record #1: ts must be integer milliseconds, got 1.5',
  );
});

function errorOf(fn: () => unknown): LogFormatError {
  try {
    fn();
  } catch (e) {
    if (e instanceof LogFormatError) return e;
    throw e;
  }
  throw new Error('expected a LogFormatError');
}

test('a malformed line names file:line, the row kind, the field path and what to do', () => {
  const lines = serializeLog(sample).trimEnd().split('\n');
  const withLine = (i: number, text: string) => lines.map((l, j) => (j === i ? text : l)).join('\n');

  const badChunk = errorOf(() => parseLogText(withLine(4, lines[4]!.replace('"Hel"', '42')), 'f.jsonl'));
  expect(badChunk.message).toMatch(/^f\.jsonl:5: bad packed row at chunks\[1\]: .*fix or remove that line/);
  expect([badChunk.file, badChunk.line, badChunk.rowKind, badChunk.path]).toEqual([
    'f.jsonl',
    5,
    'packed',
    'chunks[1]',
  ]);

  const badTurn = errorOf(() =>
    parseLogText(withLine(1, '{"seq":1,"ts":1,"event":{"type":"turn/start","turn":"x"}}'), 'f.jsonl'),
  );
  expect(badTurn.message).toMatch(/^f\.jsonl:2: bad event row at event\.turn: /);

  const badDt = errorOf(() =>
    parseLogText(withLine(4, lines[4]!.replace('"dt":[1,1,1,1,1]', '"dt":[1]')), 'f.jsonl'),
  );
  expect(badDt.message).toContain('f.jsonl:5: bad packed row at dt: has 1 entries for 6 chunks (expected 5)');

  const halfEnvelope = errorOf(() => parseLogText(withLine(4, lines[4]!.replace('"seq":4,', '')), 'f.jsonl'));
  expect(halfEnvelope.message).toContain('f.jsonl:5: bad packed row at seq: seq and ts come together');

  const notJson = errorOf(() => parseLogText(withLine(2, '{"seq":2,'), 'f.jsonl'));
  expect(notJson.message).toMatch(/^f\.jsonl:3: bad row at \(row\): not valid JSON/);

  const unknown = errorOf(() => parseLogText(withLine(2, '{"seq":2}'), 'f.jsonl'));
  expect(unknown.message).toContain('f.jsonl:3: bad row at (row): not a session log row');

  const extraKey = errorOf(() =>
    parseLogText(withLine(1, '{"seq":1,"ts":1,"event":{"type":"turn/start","turn":1},"x":1}')),
  );
  expect(extraKey.message).toMatch(/^<text>:2: bad event row at \(row\): Unrecognized key: "x"/);

  const secondHeader = errorOf(() => parseLogText(withLine(1, lines[0]!), 'f.jsonl'));
  expect(secondHeader.message).toContain('f.jsonl:2: bad header row at type: a second session header');
});

test('the header line is checked for format and version first', () => {
  const text = serializeLog(sample);
  expect(errorOf(() => parseLogText(text.replace('"version":1', '"version":2'), 'f.jsonl')).message).toBe(
    'f.jsonl:1: bad header row at version: format version 2 is not the version this reader understands (1). ' +
      'Read it with the @acp-snapshot/session-log release that wrote it, or re-record the session',
  );
  expect(
    errorOf(() => parseLogText(text.replace('acp-snapshot/session-log', 'other'), 'f.jsonl')).message,
  ).toContain(
    'f.jsonl:1: bad header row at format: format is "other", expected "acp-snapshot/session-log". This is not an acp-snapshot session log',
  );
  expect(errorOf(() => parseLogText(text.split('\n').slice(1).join('\n'), 'f.jsonl')).message).toContain(
    'f.jsonl:1: bad event row at type: the first row must be the session header',
  );
  expect(errorOf(() => parseLogText('', 'f.jsonl')).message).toContain('f.jsonl: no complete session header');
});

test('a half-written last line is a warning with the number of records recovered, not an error', () => {
  const text = serializeLog(sample);
  const cut = text.slice(0, text.length - 20);
  const { records, warnings } = parseLogText(cut, 'f.jsonl');
  expect(records).toEqual(sample.slice(0, -1));
  expect(warnings).toEqual([
    'f.jsonl:7: torn tail: the last line is incomplete (the writer stopped mid-write?); recovered 11 records before it',
  ]);
  // A complete last line without its newline is not torn.
  expect(parseLogText(text.trimEnd()).warnings).toEqual([]);
  // CRLF line ends and blank lines (hand-edited fixtures) are tolerated.
  expect(parseLogText(text.replaceAll('\n', '\r\n\n')).records).toEqual(sample);
});

function isMaximal(rows: Row[]): boolean {
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1] as PackedRow;
    const b = rows[i] as PackedRow;
    if (!('chunks' in a) || !('chunks' in b) || a.turn !== b.turn || a.step !== b.step) continue;
    if (a.seq === undefined && b.seq === undefined) return false;
    if (a.seq !== undefined && b.seq === a.seq + a.chunks.length) return false;
  }
  return true;
}

test('property: unpack(pack(records)) == records, and canonical rows are maximal', () => {
  fc.assert(
    fc.property(anyRecords, (records) => {
      const rows = encodeRows(records);
      expect(decodeRows(rows)).toEqual(records);
      expect(isMaximal(rows)).toBe(true);
    }),
    { numRuns: 150 },
  );
});

test('property: pack(unpack(x)) == x for canonical x, as rows and as text', () => {
  fc.assert(
    fc.property(anyRecords, (records) => {
      const rows = encodeRows(records);
      expect(encodeRows(decodeRows(JSON.parse(JSON.stringify(rows))))).toEqual(rows);
      const text = serializeLog(records);
      const back = parseLogText(text, 'gen.jsonl');
      expect(back.warnings).toEqual([]);
      expect(serializeLog(back.records)).toBe(text);
    }),
    { numRuns: 150 },
  );
});

test('non-canonical rows (every chunk alone, as the live appender writes) decode to the same records', () => {
  fc.assert(
    fc.property(anyRecords, (records) => {
      const live = records.map((r) => encodeSingleRow(r));
      expect(decodeRows(live)).toEqual(records);
      expect(encodeRows(decodeRows(live))).toEqual(encodeRows(records));
    }),
    { numRuns: 60 },
  );
});

test('session events (mode, config option, close, a resume without history) round-trip as single-event rows', () => {
  const records = makeRecords([
    buildHeader(),
    { type: 'session/mode', modeId: 'auto' },
    { type: 'session/config', configId: 'model', value: 'deepseek-reasoner' },
    { type: 'boundary', kind: 'resume', method: 'session/resume' },
    { type: 'session/close' },
  ]);
  const lines = serializeLog(records).trimEnd().split('\n');
  expect(lines.slice(1)).toEqual([
    '{"seq":1,"ts":1735689600001,"event":{"type":"session/mode","modeId":"auto"}}',
    '{"seq":2,"ts":1735689600002,"event":{"type":"session/config","configId":"model","value":"deepseek-reasoner"}}',
    '{"seq":3,"ts":1735689600003,"event":{"type":"boundary","kind":"resume","method":"session/resume"}}',
    '{"seq":4,"ts":1735689600004,"event":{"type":"session/close"}}',
  ]);
  expect(parseLogText(lines.join('\n')).records).toEqual(records);
  const emptyMode = errorOf(() =>
    parseLogText(
      [lines[0], '{"seq":1,"ts":1,"event":{"type":"session/mode","modeId":""}}'].join('\n'),
      'f.jsonl',
    ),
  );
  expect(emptyMode.message).toMatch(/^f\.jsonl:2: bad event row at event\.modeId: /);
});
