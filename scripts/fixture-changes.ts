/**
 * What changed between two recordings of an example's tests (before and after an agent upgrade): the ACP wire
 * the agent wrote (stdout.jsonl) and the model requests it made (exchanges.jsonl, sidecars resolved), summarized
 * for whoever updates the agent's profile: fields that appeared or went away, values that look volatile where
 * there were none, model calls that appeared or went away in a test, and changed values (defaults).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readExchangeLog } from '@acp-snapshot/model-http';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface ModelCall {
  method: string;
  path: string;
  body: Json;
}

/** One test's recording: the agent's ACP messages and its model requests, in order. */
export interface Recording {
  wire: Json[];
  calls: ModelCall[];
}

/** The recordings under a tests/__acp__ directory, by `file/project/test`. */
export function readRecordings(acpDir: string): Map<string, Recording> {
  const out = new Map<string, Recording>();
  if (!existsSync(acpDir)) return out;
  for (const file of readdirSync(acpDir))
    for (const project of readdirSync(join(acpDir, file))) {
      const projectDir = join(acpDir, file, project);
      for (const test of readdirSync(projectDir)) {
        const dir = join(projectDir, test);
        if (!existsSync(join(dir, 'stdout.jsonl'))) continue;
        const wire = readFileSync(join(dir, 'stdout.jsonl'), 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as Json);
        const log = join(dir, 'exchanges.jsonl');
        const calls = existsSync(log)
          ? readExchangeLog(log, { sidecars: join(projectDir, 'sidecars') }).map((e) => ({
              method: e.request.method,
              path: e.request.path,
              body: (e.request.body ?? null) as Json,
            }))
          : [];
        out.set(`${file}/${project}/${test}`, { wire, calls });
      }
    }
  return out;
}

export interface ValueChange {
  where: string;
  before: string;
  after: string;
  tests: number;
}

export interface FixtureChanges {
  tests: { added: string[]; removed: string[] };
  wire: { added: string[]; removed: string[]; changed: ValueChange[] };
  requests: {
    added: string[];
    removed: string[];
    changed: ValueChange[];
    endpoints: { added: string[]; removed: string[] };
    /** The tools offered to the model, by name (their schemas are left out of the field lists). */
    tools: { added: string[]; removed: string[] };
  };
  /** Values that look like ids, clocks or dates where the earlier recording had none of that look. */
  volatile: Array<{ where: string; kind: string; value: string }>;
  /** Tests whose model calls changed in number, with the calls that came or went (by endpoint and system text). */
  calls: Array<{ test: string; before: number; after: number; added: string[]; removed: string[] }>;
}

/** Patterns of values that differ run to run. */
const VOLATILE: Array<[string, RegExp]> = [
  ['uuid', /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i],
  ['epoch-ms', /(?<!\d)1[6-9]\d{11}(?!\d)/],
  ['iso-time', /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/],
  ['hex-id', /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{16,}\b/],
  ['ulid', /\b[0-9A-HJKMNP-TV-Z]{26}\b/],
];

/** A long text (a prompt, a tool's description) counts as one changed text, not as a changed default. */
const LONG = 80;

/** The ACP message's kind: its method (and update kind), or for a response the request it answers, by shape. */
export function wireKind(msg: Json): string {
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return 'line';
  if (typeof msg.method === 'string') {
    const update = (msg.params as { update?: { sessionUpdate?: unknown } } | undefined)?.update
      ?.sessionUpdate;
    return typeof update === 'string' ? `${msg.method} ${update}` : msg.method;
  }
  if ('error' in msg) return 'error response';
  const result = msg.result as Record<string, unknown> | undefined;
  if (result && typeof result === 'object') {
    if ('protocolVersion' in result) return 'initialize result';
    if ('stopReason' in result) return 'session/prompt result';
    if ('sessionId' in result) return 'session/new result';
  }
  return 'result';
}

/** Leaves of a JSON value: [path with indices, path with `[]`, value]. */
function leaves(
  value: Json,
  at = '',
  out: Array<[string, string, Json]> = [],
  shape = '',
): Array<[string, string, Json]> {
  if (Array.isArray(value)) {
    if (value.length === 0) out.push([at, shape, '[]' as Json]);
    value.forEach((v, i) => {
      leaves(v, `${at}[${i}]`, out, `${shape}[]`);
    });
  } else if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) out.push([at, shape, '{}' as Json]);
    for (const k of keys) leaves(value[k] as Json, at ? `${at}.${k}` : k, out, shape ? `${shape}.${k}` : k);
  } else out.push([at, shape, value]);
  return out;
}

/** The tools a request offers, by name, in any of the four wire formats. */
function toolNames(body: Json): string[] {
  const tools = body && typeof body === 'object' && !Array.isArray(body) ? body.tools : undefined;
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const t of tools) {
    if (!t || typeof t !== 'object' || Array.isArray(t)) continue;
    const fn = t.function as Record<string, Json> | undefined;
    if (typeof fn?.name === 'string') names.push(fn.name);
    else if (typeof t.name === 'string') names.push(t.name);
    if (Array.isArray(t.functionDeclarations))
      for (const d of t.functionDeclarations)
        if (d && typeof d === 'object' && !Array.isArray(d) && typeof d.name === 'string') names.push(d.name);
  }
  return names;
}

/** Tool schemas change with every release; the tool list says what matters (see toolNames). */
const isToolLeaf = (shape: string) =>
  shape === 'tools' || shape.startsWith('tools[]') || shape.startsWith('tools.');

/** The system text a model call starts from, in any of the four wire formats (to tell a title call from a turn). */
function systemText(body: Json): string {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, Json>;
  const text = (v: Json | undefined): string => {
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) return v.map(text).join(' ');
    if (v && typeof v === 'object')
      return text(
        (v as Record<string, Json>).text ??
          (v as Record<string, Json>).content ??
          (v as Record<string, Json>).parts ??
          null,
      );
    return '';
  };
  const first = (list: Json | undefined) =>
    Array.isArray(list)
      ? list.find(
          (m) =>
            m &&
            typeof m === 'object' &&
            !Array.isArray(m) &&
            ['system', 'developer'].includes(String(m.role)),
        )
      : undefined;
  return (
    text(b.system) ||
    text(b.instructions) ||
    text(b.systemInstruction) ||
    text(first(b.messages)) ||
    text(first(b.input)) ||
    ''
  );
}

/** A call by endpoint, tool count and the end of its system text (a title call and a turn share the start). */
function callLabel(call: ModelCall): string {
  const system = systemText(call.body).replace(/\s+/g, ' ').trim();
  const tools = toolNames(call.body).length;
  const tail = system.length > 50 ? `…${system.slice(-50)}` : system;
  return `${call.method} ${call.path} (${tools} tools${system ? `; system "${tail}"` : ''})`;
}

/** Multiset difference of labels. */
function minus(a: string[], b: string[]): string[] {
  const left = [...b];
  return a.filter((x) => {
    const i = left.indexOf(x);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

function show(v: Json): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** Compares the recordings before and after. */
export function fixtureChanges(
  before: Map<string, Recording>,
  after: Map<string, Recording>,
): FixtureChanges {
  const shapes = (recs: Map<string, Recording>) => {
    const wire = new Set<string>();
    const requests = new Set<string>();
    const endpoints = new Set<string>();
    const tools = new Set<string>();
    const volatile = new Map<string, string>();
    for (const rec of recs.values()) {
      for (const msg of rec.wire)
        for (const [, shape, v] of leaves(msg)) {
          const where = `${wireKind(msg)}: ${shape}`;
          wire.add(where);
          note(volatile, where, v);
        }
      for (const call of rec.calls) {
        endpoints.add(`${call.method} ${call.path}`);
        for (const name of toolNames(call.body)) tools.add(name);
        for (const [, shape, v] of leaves(call.body)) {
          if (isToolLeaf(shape)) continue;
          const where = `request body: ${shape}`;
          requests.add(where);
          note(volatile, where, v);
        }
      }
    }
    return { wire, requests, endpoints, tools, volatile };
  };
  const note = (into: Map<string, string>, where: string, v: Json) => {
    const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
    for (const [kind, re] of VOLATILE) {
      const m = re.exec(text);
      if (m && !into.has(`${where}\n${kind}`)) into.set(`${where}\n${kind}`, m[0]);
    }
  };
  const was = shapes(before);
  const now = shapes(after);
  const added = (a: Set<string>, b: Set<string>) => [...b].filter((x) => !a.has(x)).sort();

  // Changed values at the same place: wire messages paired by kind and occurrence, calls by endpoint and occurrence.
  const changed = { wire: new Map<string, ValueChange>(), requests: new Map<string, ValueChange>() };
  const compare = (into: Map<string, ValueChange>, label: string, a: Json, b: Json) => {
    const old = new Map(leaves(a).map(([p, , v]) => [p, v]));
    const longChanged: string[] = [];
    for (const [p, shape, v] of leaves(b)) {
      if (!old.has(p) || (label === 'request body' && isToolLeaf(shape))) continue;
      const o = old.get(p) as Json;
      if (o === v) continue;
      if ((typeof o === 'string' && o.length > LONG) || (typeof v === 'string' && v.length > LONG)) {
        longChanged.push(shape);
        continue;
      }
      const key = `${label}: ${p}\n${show(o)}\n${show(v)}`;
      const seen = into.get(key);
      if (seen) seen.tests++;
      else into.set(key, { where: `${label}: ${p}`, before: show(o), after: show(v), tests: 1 });
    }
    for (const shape of new Set(longChanged)) {
      const key = `${label}: ${shape}\n(long text)`;
      const seen = into.get(key);
      if (seen) seen.tests++;
      else
        into.set(key, { where: `${label}: ${shape}`, before: '(a long text)', after: '(another)', tests: 1 });
    }
  };
  const byKind = <T>(items: T[], kind: (t: T) => string) => {
    const seen = new Map<string, number>();
    return items.map((t) => {
      const k = kind(t);
      const n = seen.get(k) ?? 0;
      seen.set(k, n + 1);
      return [`${k} #${n + 1}`, t] as const;
    });
  };
  const calls: FixtureChanges['calls'] = [];
  for (const [test, rec] of after) {
    const prev = before.get(test);
    if (!prev) continue;
    const prevWire = new Map(byKind(prev.wire, wireKind));
    for (const [k, msg] of byKind(rec.wire, wireKind))
      if (prevWire.has(k)) compare(changed.wire, k.replace(/ #\d+$/, ''), prevWire.get(k) as Json, msg);
    const endpoint = (c: ModelCall) => `${c.method} ${c.path}`;
    const prevCalls = new Map(byKind(prev.calls, endpoint));
    for (const [k, call] of byKind(rec.calls, endpoint)) {
      const p = prevCalls.get(k);
      if (p) compare(changed.requests, 'request body', p.body, call.body);
    }
    const a = prev.calls.map(callLabel);
    const b = rec.calls.map(callLabel);
    if (a.length !== b.length)
      calls.push({ test, before: a.length, after: b.length, added: minus(b, a), removed: minus(a, b) });
  }
  const volatile = [...now.volatile]
    .filter(([key]) => !was.volatile.has(key))
    .map(([key, value]) => {
      const [where, kind] = key.split('\n') as [string, string];
      return { where, kind, value };
    })
    .sort((x, y) => x.where.localeCompare(y.where));
  const sortChanges = (m: Map<string, ValueChange>) =>
    [...m.values()].sort((x, y) => x.where.localeCompare(y.where));
  return {
    tests: {
      added: added(new Set(before.keys()), new Set(after.keys())),
      removed: added(new Set(after.keys()), new Set(before.keys())),
    },
    wire: {
      added: added(was.wire, now.wire),
      removed: added(now.wire, was.wire),
      changed: sortChanges(changed.wire),
    },
    requests: {
      added: added(was.requests, now.requests),
      removed: added(now.requests, was.requests),
      changed: sortChanges(changed.requests),
      endpoints: { added: added(was.endpoints, now.endpoints), removed: added(now.endpoints, was.endpoints) },
      tools: { added: added(was.tools, now.tools), removed: added(now.tools, was.tools) },
    },
    volatile,
    calls,
  };
}

/** True when nothing the report lists changed. */
export function unchanged(c: FixtureChanges): boolean {
  return formatChanges(c, Number.POSITIVE_INFINITY) === NOTHING;
}

const NOTHING = 'No change in the ACP wire or the model requests.';

/** The report as text, each list cut at `limit` lines ("and N more"). */
export function formatChanges(c: FixtureChanges, limit = 25): string {
  const out: string[] = [];
  const section = (title: string, lines: string[]) => {
    if (!lines.length) return;
    out.push(`${title} (${lines.length}):`);
    for (const l of lines.slice(0, limit)) out.push(`  ${l}`);
    if (lines.length > limit) out.push(`  ... and ${lines.length - limit} more`);
  };
  const change = (v: ValueChange) =>
    `${v.where}: ${v.before} -> ${v.after}${v.tests > 1 ? ` (${v.tests} times)` : ''}`;
  section('Tests recorded now and not before', c.tests.added);
  section('Tests recorded before and not now', c.tests.removed);
  section(
    'New volatile-looking values (normalize them in the profile: normalize.paths, requestIds)',
    c.volatile.map((v) => `${v.where}: ${v.kind} ${JSON.stringify(v.value)}`),
  );
  section(
    'Model calls that came or went (background calls: title, review, memory...)',
    c.calls.map(
      (t) =>
        `${t.test}: ${t.before} -> ${t.after} calls${t.added.map((a) => `; + ${a}`).join('')}${t.removed.map((r) => `; - ${r}`).join('')}`,
    ),
  );
  section('New model endpoints', c.requests.endpoints.added);
  section('Model endpoints no longer called', c.requests.endpoints.removed);
  section('Tools offered to the model now and not before', c.requests.tools.added);
  section('Tools no longer offered', c.requests.tools.removed);
  section('New fields in the ACP wire', c.wire.added);
  section('Fields gone from the ACP wire', c.wire.removed);
  section('Changed values in the ACP wire (defaults, modes, capabilities)', c.wire.changed.map(change));
  section('New fields in the model requests', c.requests.added);
  section('Fields gone from the model requests', c.requests.removed);
  section('Changed values in the model requests', c.requests.changed.map(change));
  return out.length ? out.join('\n') : NOTHING;
}
