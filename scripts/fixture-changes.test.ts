// The upgrade's change report over pairs of recordings built from the committed examples' real shapes: an
// agent release that adds a background call, a volatile id, a field, and changes a default is reported as such;
// the same recording twice reports nothing.
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  fixtureChanges,
  formatChanges,
  type Recording,
  readRecordings,
  unchanged,
} from './fixture-changes.js';

const EXAMPLES = join(import.meta.dirname, '..', 'examples');
const claudeTree = join(EXAMPLES, 'claude-agent-acp/tests/__acp__');
const PLAIN = 'claude.spec.ts/claude/a-plain-answer';

type Obj = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);
/** The committed recordings, read afresh (each test changes its own copy). */
const committed = () => readRecordings(claudeTree);
const byKind = (rec: Recording, has: (m: Obj) => boolean) => rec.wire.find((m) => has(m as Obj)) as Obj;

test('the same recording twice: no change', () => {
  const report = fixtureChanges(committed(), committed());
  expect(unchanged(report)).toBe(true);
  expect(formatChanges(report)).toBe('No change in the ACP wire or the model requests.');
});

test('the committed tree is read with its sidecars resolved: the system text and tools of each model call', () => {
  const plain = committed().get(PLAIN)!;
  // The turn and the title call beside it.
  expect(plain.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
    'POST /v1/messages?beta=true',
    'POST /v1/messages?beta=true',
  ]);
  expect(JSON.stringify(plain.calls[0]!.body)).not.toContain('"sidecar"');
  expect(plain.wire[0]).toMatchObject({ id: '{{id:1}}', result: { protocolVersion: 1 } });
});

test('a release with a title call, a random id, a new field and a changed default: each is named', () => {
  const before = committed();
  const after = clone(before);
  // Before: no title call beside the first turn, and a session that started in `auto`.
  const was = before.get(PLAIN)!;
  was.calls = was.calls.filter((c) => !JSON.stringify(c.body).includes('<session>'));
  (byKind(was, (m) => !!(m.result as Obj)?.modes).result as { modes: Obj }).modes.currentModeId = 'auto';
  // After: a random request id in the prompt's result, a clock in the request metadata, a field gone.
  const now = after.get(PLAIN)!;
  const promptResult = byKind(now, (m) => !!(m.result as Obj)?.stopReason).result as Obj;
  promptResult._meta = { requestId: '0198f0a2-7c3e-7d41-9a55-4c1e2b3a9f10' };
  (now.calls[0]!.body as { metadata: Obj }).metadata.started_at_ms = 1764645600123;
  const init = byKind(now, (m) => !!(m.result as Obj)?.protocolVersion).result as {
    agentCapabilities: { sessionCapabilities: Obj };
  };
  for (const rec of after.values())
    for (const m of rec.wire) {
      const caps = ((m as Obj).result as { agentCapabilities?: { sessionCapabilities?: Obj } })
        ?.agentCapabilities;
      if (caps?.sessionCapabilities) delete caps.sessionCapabilities.fork;
    }
  expect(init.agentCapabilities.sessionCapabilities.fork).toBeUndefined();

  const report = fixtureChanges(before, after);
  expect(report.calls).toEqual([
    {
      test: PLAIN,
      before: 1,
      after: 2,
      added: [expect.stringMatching(/^POST \/v1\/messages\?beta=true \(0 tools; system "…/)],
      removed: [],
    },
  ]);
  expect(report.volatile).toEqual([
    {
      where: 'request body: metadata.started_at_ms',
      kind: 'epoch-ms',
      value: '1764645600123',
    },
    {
      where: 'session/prompt result: result._meta.requestId',
      kind: 'uuid',
      value: '0198f0a2-7c3e-7d41-9a55-4c1e2b3a9f10',
    },
  ]);
  expect(report.wire.added).toEqual(['session/prompt result: result._meta.requestId']);
  expect(report.wire.removed).toEqual([
    'initialize result: result.agentCapabilities.sessionCapabilities.fork',
  ]);
  expect(report.requests.added).toEqual(['request body: metadata.started_at_ms']);
  expect(report.wire.changed).toEqual([
    {
      where: 'session/new result: result.modes.currentModeId',
      before: '"auto"',
      after: '"default"',
      tests: 1,
    },
  ]);
  const text = formatChanges(report);
  expect(text).toContain(
    'New volatile-looking values (normalize them in the profile: normalize.paths, requestIds) (2):',
  );
  expect(text).toContain(`  ${PLAIN}: 1 -> 2 calls; + POST /v1/messages?beta=true (0 tools; system "…`);
  expect(text).toContain('  session/new result: result.modes.currentModeId: "auto" -> "default"');
});

test('tools come and go by name, their schemas left out; a long list is cut with a count', () => {
  const gemini = readRecordings(join(EXAMPLES, 'gemini-cli/tests/__acp__'));
  const after = clone(gemini);
  for (const rec of after.values())
    for (const call of rec.calls) {
      const decls = (call.body as { tools: Array<{ functionDeclarations: Obj[] }> }).tools[0]!
        .functionDeclarations;
      decls.push({
        name: 'open_browser_tab',
        parametersJsonSchema: { type: 'object', properties: { url: { type: 'string' } } },
      });
      decls.splice(
        decls.findIndex((d) => d.name === 'update_topic'),
        1,
      );
      for (const d of decls) d.description = `${d.description ?? ''} (changed)`;
    }
  const report = fixtureChanges(gemini, after);
  expect(report.requests.tools).toEqual({ added: ['open_browser_tab'], removed: ['update_topic'] });
  expect(report.requests.added).toEqual([]);
  expect(report.requests.changed).toEqual([]);
  const many = {
    ...report,
    wire: { ...report.wire, added: Array.from({ length: 30 }, (_, i) => `x: f${i}`) },
  };
  const text = formatChanges(many, 5);
  expect(text).toContain(
    'New fields in the ACP wire (30):\n  x: f0\n  x: f1\n  x: f2\n  x: f3\n  x: f4\n  ... and 25 more',
  );
});
