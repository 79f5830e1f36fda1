// Config strings use the ${VAR} syntax on purpose: they are not template literals.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config syntax under test
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { type ConfigSource, deepMerge, readConfigFile, resolveConfig } from './config.js';

const base: ConfigSource = {
  path: '/base/config.json',
  json: {
    llm: { plugin: 'deepseek', model: 'm1', options: { baseUrl: 'https://api.example', apiKeyEnv: 'K' } },
    persistRoot: '~/.sessions',
    spillRoot: '/abs/spill',
  },
};

test('overlay objects merge key by key, scalars and arrays are replaced, null removes a key', () => {
  expect(deepMerge({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, d: null, e: 'x' })).toEqual({
    a: { b: 1, c: [3] },
    e: 'x',
  });
});

test('defaults fill every optional key; ~ expands to HOME', () => {
  const c = resolveConfig([base], { HOME: '/home/u' });
  expect(c.persistRoot).toBe('/home/u/.sessions');
  expect(c.persistenceCompression).toBe('gzip');
  expect(c.permissions).toEqual({ edit: 'ask', command: 'ask' });
  expect(c.compaction.budgetTokens).toBe(96000);
  expect(c.clock).toEqual({ kind: 'system' });
  expect(c.ids).toEqual({ kind: 'random' });
});

test('${VAR} is substituted; ${VAR?} unset leaves the base value; a missing ${VAR} names key and file', () => {
  const overlay: ConfigSource = {
    path: '/o/replay.json',
    json: { llm: { options: { baseUrl: '${BASE?}', fixture: '${FIX}', note: 'a-${OPT?}-b' } } },
  };
  const c = resolveConfig([base, overlay], { FIX: '/f.jsonl' });
  expect(c.llm.options).toEqual({
    baseUrl: 'https://api.example',
    apiKeyEnv: 'K',
    fixture: '/f.jsonl',
    note: 'a--b',
  });
  const d = resolveConfig([base, overlay], { FIX: '/f.jsonl', BASE: 'http://127.0.0.1:1' });
  expect(d.llm.options.baseUrl).toBe('http://127.0.0.1:1');
  expect(() => resolveConfig([base, overlay], {})).toThrow(
    'config error: llm.options.fixture: environment variable FIX is not set (referenced by /o/replay.json',
  );
});

test('$${ is a literal ${', () => {
  const overlay: ConfigSource = { path: '/o.json', json: { systemPrompt: 'cost $${HOME}' } };
  expect(resolveConfig([base, overlay], { HOME: '/h' }).systemPrompt).toBe('cost ${HOME}');
});

test('invalid values are reported with the key and the file that set it', () => {
  const overlay: ConfigSource = {
    path: '/o.json',
    json: { clock: { kind: 'fixed-step', start: 'soon', stepMs: 1 } },
  };
  expect(() => resolveConfig([base, overlay], {})).toThrow(/config error: clock\.start: .*\(in \/o\.json\)/);
  const limits: ConfigSource = { path: '/t.json', json: { tools: { grep: { maxMatches: 0 } } } };
  expect(() => resolveConfig([base, limits], {})).toThrow(
    /config error: tools\.grep\.maxMatches: .*\(in \/t\.json\)/,
  );
  const typo: ConfigSource = { path: '/t.json', json: { tools: { read_file: { defaultLimt: 5 } } } };
  expect(() => resolveConfig([base, typo], {})).toThrow(/config error: tools\.read_file: .*defaultLimt/);
  const missing: ConfigSource = { path: '/b.json', json: { llm: { plugin: 'x' } } };
  expect(() => resolveConfig([missing], {})).toThrow(/config error: llm\.model: /);
});

test('a config file that is not JSON names the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acp-config-test-'));
  const path = join(dir, 'bad.json');
  writeFileSync(path, '{ "llm": ');
  expect(() => readConfigFile(path)).toThrow(`config error: ${path}: not valid JSON`);
  expect(() => readConfigFile(join(dir, 'none.json'))).toThrow(
    `config error: cannot read ${join(dir, 'none.json')}`,
  );
  // A byte order mark is fine; bytes that are not UTF-8 are named where they are.
  writeFileSync(path, '\ufeff{ "llm": { "model": "m" } }');
  expect(readConfigFile(path).json).toEqual({ llm: { model: 'm' } });
  writeFileSync(path, Buffer.from('{\n "name": "caf\xe9" }', 'latin1'));
  expect(() => readConfigFile(path)).toThrow(
    `config error: ${path}:2: not valid UTF-8 (byte 0xe9 at column 14); save the file as UTF-8`,
  );
});

test('the shipped base config and overlays are valid', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const env = {
    HOME: '/h',
    ACP_SNAPSHOT_FIXTURE: '/f/session.jsonl',
    ACP_SNAPSHOT_SCENARIO: 's',
    ACP_SNAPSHOT_PERSIST_ROOT: '/p',
    ACP_SNAPSHOT_SPILL_ROOT: '/s',
  };
  const baseFile = readConfigFile(join(root, 'config.json'));
  const replay = resolveConfig([baseFile, readConfigFile(join(root, 'overlays/replay.json'))], env);
  expect(replay.llm.plugin).toBe('replay');
  // The optional variables left unset drop their keys; the roots the harness sets reach the plugin as options.
  expect(replay.llm.options).toEqual({
    fixture: '/f/session.jsonl',
    scenario: 's',
    home: '/h',
    persistRoot: '/p',
    spillRoot: '/s',
  });
  expect(replay.persistenceCompression).toBe('none');
  expect(replay.ids).toEqual({ kind: 'counter' });
  const record = resolveConfig([baseFile, readConfigFile(join(root, 'overlays/record.json'))], env);
  expect(record.llm.plugin).toBe('openai-compatible');
  expect(record.llm.options.baseUrl).toBe('https://api.deepseek.com');
  expect(record.llm.model).toBe(replay.llm.model);
});
