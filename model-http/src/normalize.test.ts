import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { dashedPath, fingerprint, type JsonValue, RequestNormalizer } from './normalize.js';

const CWD = '/tmp/acp-mh-1f2e3d4c/work';
const HOME = '/tmp/acp-mh-1f2e3d4c/home';

test('dates in the spellings agents use become {{date}}; versions, counts and ids stay', () => {
  const n = new RequestNormalizer();
  const cases: Array<[string, string]> = [
    ["Today's date is 2026-12-01.", "Today's date is {{date}}."],
    ["Today's date is Tuesday, December 1, 2026.", "Today's date is {{date}}."],
    ["Today's date is 12/1/26.", "Today's date is {{date}}."],
    ['It is 2026-12-01T14:12:44.123Z now', 'It is {{date}} now'],
    ['at 2026-12-01 14:12:44+01:00.', 'at {{date}}.'],
    ['Tue Dec 01 2026 14:12:44 GMT+0000 (Coordinated Universal Time)', '{{date}}'],
    ['on Tuesday, December 1, 2026 at 2:12 PM', 'on {{date}}'],
    ['by December 1st, 2026', 'by {{date}}'],
    ['on Tuesday, 1 December 2026', 'on {{date}}'],
    ['on 1 Dec 2026', 'on {{date}}'],
    ['due 12/1/2026', 'due {{date}}'],
    ['version 2026.1.3 of 12345 files, id 1f2e-2026', 'version 2026.1.3 of 12345 files, id 1f2e-2026'],
    ['Monday we met in May', 'Monday we met in May'],
  ];
  for (const [input, expected] of cases) expect(n.text(input), input).toBe(expected);
  expect(new RequestNormalizer({ dates: false }).text('2026-12-01')).toBe('2026-12-01');
});

test("roots use core's rule, and claude's dashed spelling of a directory is a root too", () => {
  const n = new RequestNormalizer({ roots: { cwd: CWD, home: HOME } });
  expect(dashedPath(CWD)).toBe('-tmp-acp-mh-1f2e3d4c-work');
  expect(n.text(`cd ${CWD} && cat ${HOME}/.claude/projects/${dashedPath(CWD)}/memory/a.md`)).toBe(
    'cd {{cwd}} && cat {{home}}/.claude/projects/{{cwdDashed}}/memory/a.md',
  );
  // Not inside a longer name (the one boundary rule).
  expect(n.text(`${CWD}space/x`)).toBe(`${CWD}space/x`);
  expect(n.hydration).toMatchObject({ cwd: CWD, cwdDashed: '-tmp-acp-mh-1f2e3d4c-work' });
  expect(new RequestNormalizer({ roots: { cwd: CWD }, dashed: false }).text(dashedPath(CWD))).toBe(
    dashedPath(CWD),
  );
});

test('ids: by JSON path (whole value) and by pattern (numbered by first appearance in the request)', () => {
  const n = new RequestNormalizer({
    ids: [
      { path: 'metadata.user_id', name: 'userId' },
      { path: 'input[*].id', name: 'itemId' },
      { path: '**.session_id', name: 'sessionId' },
      { pattern: /inst-[0-9a-f]{8}/, name: 'installation' },
    ],
  });
  const body: JsonValue = {
    metadata: { user_id: 'user_abc_account__session_123' },
    input: [{ id: 'rs_1', text: 'x' }, { id: 'rs_2' }],
    deep: { a: [{ session_id: 'S1' }] },
    text: 'inst-0000aaaa then inst-1111bbbb then inst-0000aaaa',
    id: 'stays',
  };
  expect(n.body(body)).toEqual({
    deep: { a: [{ session_id: '{{sessionId}}' }] },
    id: 'stays',
    input: [{ id: '{{itemId}}', text: 'x' }, { id: '{{itemId}}' }],
    metadata: { user_id: '{{userId}}' },
    text: '{{installation#1}} then {{installation#2}} then {{installation#1}}',
  });
});

test('ids in the harness spelling (JSON Pointers, a {{name}} placeholder) normalize as the earlier spelling does', () => {
  const body: JsonValue = {
    metadata: { user_id: 'u1', 'a/b': 'slash' },
    input: [{ id: 'rs_1' }, { id: 'rs_2' }],
    deep: { a: [{ session_id: 'S1' }] },
    text: 'inst-0000aaaa then inst-1111bbbb',
  };
  const pointers = new RequestNormalizer({
    ids: [
      { path: '/metadata/user_id', placeholder: '{{userId}}' },
      { path: '/metadata/a~1b', placeholder: '{{slash}}' },
      { path: '/input/*/id', placeholder: '{{itemId}}' },
      { path: '/**/session_id', placeholder: '{{sessionId}}' },
      { pattern: 'inst-[0-9a-f]{8}', placeholder: '{{installation}}' },
    ],
  });
  const dotted = new RequestNormalizer({
    ids: [
      { path: 'metadata.user_id', name: 'userId' },
      { path: '/metadata/a~1b', name: 'slash' },
      { path: 'input[*].id', name: 'itemId' },
      { path: '**.session_id', name: 'sessionId' },
      { pattern: 'inst-[0-9a-f]{8}', name: 'installation' },
    ],
  });
  expect(pointers.body(body)).toEqual(dotted.body(body));
  expect(pointers.body(body)).toEqual({
    deep: { a: [{ session_id: '{{sessionId}}' }] },
    input: [{ id: '{{itemId}}' }, { id: '{{itemId}}' }],
    metadata: { user_id: '{{userId}}', 'a/b': '{{slash}}' },
    text: '{{installation#1}} then {{installation#2}}',
  });
  expect(() => new RequestNormalizer({ ids: [{ path: '/a', placeholder: 'userId' }] })).toThrow(
    'normalize.ids: placeholder "userId" is not one {{name}} (e.g. "{{userId}}")',
  );
});

test('headers take part only when named, and a credential header cannot be named', () => {
  const raw = Buffer.from('{"a":1}');
  const n = new RequestNormalizer({ headers: ['anthropic-beta'] });
  const r = n.request(
    'post',
    '/v1/messages?beta=true&key=secret',
    { 'anthropic-beta': 'x', 'x-other': 'y' },
    raw,
  );
  expect(r).toEqual({
    method: 'POST',
    path: '/v1/messages?beta=true',
    headers: { 'anthropic-beta': 'x' },
    body: { a: 1 },
  });
  expect(() => new RequestNormalizer({ headers: ['X-Api-Key'] })).toThrow(
    'normalize.headers: "X-Api-Key" carries a credential and is never matched or stored',
  );
});

test('a body that is not JSON is kept as normalized text, one that is not UTF-8 as base64', () => {
  const n = new RequestNormalizer({ roots: { cwd: CWD } });
  expect(n.request('POST', '/x', {}, Buffer.from(`path=${CWD}`)).text).toBe('path={{cwd}}');
  expect(n.request('POST', '/x', {}, Buffer.from([0xff, 0xfe])).base64).toBe('//4=');
  expect(n.request('GET', '/v1/models', {}, Buffer.alloc(0))).toEqual({ method: 'GET', path: '/v1/models' });
});

test('custom normalizers run last and their result is still canonical', () => {
  const n = new RequestNormalizer({
    custom: [(b) => ({ z: 1, ...(b as Record<string, JsonValue>), temperature: '{{t}}' })],
  });
  const out = n.body({ temperature: 0.7, b: 2 });
  expect(JSON.stringify(out)).toBe('{"b":2,"temperature":"{{t}}","z":1}');
});

test('fingerprint: the same for two runs of a request (other roots, other day), whatever the key order', () => {
  const run = (cwd: string, day: string, flip: boolean) => {
    const n = new RequestNormalizer({ roots: { cwd } });
    const msg = { role: 'user', content: `Today's date is ${day}. Work in ${cwd}.` };
    const body = flip ? { messages: [msg], model: 'm' } : { model: 'm', messages: [msg] };
    return fingerprint(n.request('POST', '/v1/chat/completions', {}, Buffer.from(JSON.stringify(body))));
  };
  const a = run('/tmp/acp-mh-aaaa/work', 'December 1, 2026', false);
  expect(run('/tmp/acp-mh-bbbb/work', 'December 2, 2026', true)).toBe(a);
  expect(a).toMatch(/^[0-9a-f]{64}$/);
  const n = new RequestNormalizer();
  const base = { method: 'POST', path: '/v1/messages', body: { a: 1 } };
  expect(fingerprint({ ...base, path: '/v1/chat/completions' })).not.toBe(fingerprint(base));
  expect(fingerprint({ ...base, method: 'PUT' })).not.toBe(fingerprint(base));
  // A body the normalizer built and the same body from a file hash alike.
  expect(fingerprint({ ...base, body: n.body({ a: 1 }) })).toBe(fingerprint(base));
});

const json = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>;

function shuffleKeys(v: JsonValue, seed: number): JsonValue {
  if (Array.isArray(v)) return v.map((x) => shuffleKeys(x, seed));
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    const rotated = keys
      .slice(seed % (keys.length || 1))
      .concat(keys.slice(0, seed % (keys.length || 1)))
      .reverse();
    return Object.fromEntries(rotated.map((k) => [k, shuffleKeys(v[k]!, seed)]));
  }
  return v;
}

test('property: normalizing is idempotent and the fingerprint ignores key order', () => {
  const n = new RequestNormalizer({ roots: { cwd: CWD }, ids: [{ path: '**.id', name: 'id' }] });
  fc.assert(
    fc.property(json, fc.nat(), (value, seed) => {
      const once = n.body(value);
      expect(n.body(once)).toEqual(once);
      const a = fingerprint({ method: 'POST', path: '/p', body: n.body(value) });
      const b = fingerprint({ method: 'POST', path: '/p', body: n.body(shuffleKeys(value, seed)) });
      expect(b).toBe(a);
      // A body read back from an exchange log (not built here) fingerprints the same as the live one, and
      // the JSON written while building is the canonical JSON.
      const stored = JSON.parse(JSON.stringify(once)) as JsonValue;
      expect(fingerprint({ method: 'POST', path: '/p', body: stored })).toBe(a);
    }),
    { numRuns: 300 },
  );
});

test('a long string sent again (a system prompt, each call) normalizes as it did the first time', () => {
  const prompt = `You work in ${CWD}. Today's date is 2026-12-01. ${'Keep changes small. '.repeat(40)}`;
  const n = new RequestNormalizer({ roots: { cwd: CWD } });
  const first = n.text(prompt);
  expect(first.startsWith("You work in {{cwd}}. Today's date is {{date}}.")).toBe(true);
  expect(n.text(prompt)).toBe(first);
  expect(n.text(`${prompt} `)).toBe(`${first} `);
  // Pattern ids are numbered per request: a long string keeps its numbers in each request, not the first one's.
  const ids = new RequestNormalizer({ ids: [{ pattern: 'req-[0-9]+', name: 'req' }] });
  const long = `${'x'.repeat(600)} req-2`;
  const body = (first: string) => ({ a: first, b: long }) as JsonValue;
  expect(ids.body(body('req-1'))).toEqual({ a: '{{req#1}}', b: `${'x'.repeat(600)} {{req#2}}` });
  expect(ids.body(body('no id'))).toEqual({ a: 'no id', b: `${'x'.repeat(600)} {{req#1}}` });
});

test('a recorded request gets the id rules in force now and then matches a live one; what is already a placeholder stays', () => {
  const n = new RequestNormalizer({
    roots: { cwd: CWD, user: 'user' },
    ids: [
      { path: '/metadata/user_id', placeholder: '{{userId}}' },
      { pattern: '(?<=OS Version: )[^\\n]+', placeholder: '{{osVersion}}' },
    ],
  });
  const before = {
    method: 'POST',
    path: '/v1/messages',
    body: {
      system: 'In {{cwd}} as {{user}}\nOS Version: Linux 6.18.44-fc-v1045\n',
      metadata: { user_id: 'u_1' },
    },
  };
  const live = n.request(
    'POST',
    '/v1/messages',
    {},
    Buffer.from(
      JSON.stringify({
        system: `In ${CWD} as user\nOS Version: Linux 6.18.44-fc-v1272\n`,
        metadata: { user_id: 'u_2' },
      }),
    ),
  );
  const recorded = n.recorded(before);
  expect(recorded.body).toEqual({
    metadata: { user_id: '{{userId}}' },
    system: 'In {{cwd}} as {{user}}\nOS Version: {{osVersion#1}}\n',
  });
  expect(fingerprint(recorded)).toBe(fingerprint(live));
  // Applied again (a recording made under the rules): unchanged.
  expect(n.recorded(recorded)).toEqual(recorded);
  // No id rules: the request as stored.
  expect(new RequestNormalizer().recorded(before)).toBe(before);
});
