import { expect, test } from '@playwright/test';
import { defineAcpConfig } from '../config.js';
import { type HttpModelSource, RECORD_MODE_ENV, recordModeOf } from './http-model.js';

const source: HttpModelSource = { kind: 'http', record: 'all', upstream: { baseUrlEnv: 'MODEL_URL' } };

test('the record mode: the source says it, ACP_SNAPSHOT_RECORD_MODE overrides it for one run, none by default', () => {
  expect(recordModeOf({ kind: 'http' }, {})).toBe('none');
  expect(recordModeOf(source, {})).toBe('all');
  expect(recordModeOf(source, { [RECORD_MODE_ENV]: 'missing' })).toBe('missing');
  expect(recordModeOf(source, { [RECORD_MODE_ENV]: 'none' })).toBe('none');
  expect(recordModeOf(source, { [RECORD_MODE_ENV]: '' })).toBe('all');
});

test('a bad record mode, or the old mode option, is refused saying what to write instead', () => {
  expect(() => recordModeOf(source, { [RECORD_MODE_ENV]: 'new_episodes' })).toThrow(
    'ACP_SNAPSHOT_RECORD_MODE="new_episodes" is not a record mode: use none, missing, all (e.g. ACP_SNAPSHOT_RECORD_MODE=missing records only the calls the exchange log lacks)',
  );
  expect(() => recordModeOf({ kind: 'http', record: 'once' as 'all' }, {})).toThrow(
    `model.record: "once" is not a record mode: use 'none', 'missing', 'all'`,
  );
  expect(() => recordModeOf({ kind: 'http', mode: 'record' } as HttpModelSource, {})).toThrow(
    "model: `mode: \"record\"` is now `record`: set model.record to 'none', 'missing', 'all'",
  );
});

test("defineAcpConfig: a NAME:record project records in the mode its record option names, 'all' by default", () => {
  const models = (record: Parameters<typeof defineAcpConfig>[0]['record']) =>
    Object.fromEntries(
      (
        defineAcpConfig({ agents: { a: { command: ['a'] } }, model: { kind: 'http' }, record }).projects ?? []
      ).map((p) => [p.name, (p.use as { model?: HttpModelSource }).model?.record]),
    );
  const upstream = { baseUrlEnv: 'MODEL_URL' };
  expect(models({ upstream })).toEqual({ a: undefined, 'a:record': 'all' });
  expect(models({ upstream, mode: 'missing' })).toEqual({ a: undefined, 'a:record': 'missing' });
});
