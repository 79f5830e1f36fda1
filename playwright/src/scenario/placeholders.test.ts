import { expect, test } from '@playwright/test';
import { createTestRoots, removeTestRoots, rootMap } from '../roots/roots.js';
import { expandScenarioRoots, parseScenario } from './input.js';
import { expandRootPlaceholders, ROOT_PLACEHOLDERS } from './placeholders.js';

test('the placeholders a scenario may write are exactly the roots the harness maps', async () => {
  const roots = await createTestRoots('placeholders', { workspaceParent: 'pkg/app' });
  try {
    // Every root the harness maps may be written; the machine's and install roots only where they exist.
    for (const name of Object.keys(rootMap(roots))) expect(ROOT_PLACEHOLDERS).toContain(name);
    expect(Object.keys(rootMap(roots))).toEqual(
      expect.arrayContaining(['cwd', 'workspaceParent', 'persist', 'spill', 'home', 'root']),
    );
  } finally {
    await removeTestRoots(roots);
  }
});

test('expansion replaces root placeholders in every string, keeps other braces and keys', () => {
  const map = { cwd: '/tmp/r/work', home: '/tmp/r/home', workspaceParent: undefined };
  expect(
    expandRootPlaceholders(
      {
        '{{cwd}}': ['file://{{cwd}}/a {{cwd}}', 3, null, { x: '{{home}}/.rc' }],
        y: '{{sessionId:1}} {{other}}',
      },
      map,
    ),
  ).toEqual({
    '{{cwd}}': ['file:///tmp/r/work/a /tmp/r/work', 3, null, { x: '/tmp/r/home/.rc' }],
    y: '{{sessionId:1}} {{other}}',
  });
});

test('a scenario is expanded in its prompts (text and content), its cwds and agentConfig only', () => {
  const s = parseScenario(
    {
      description: 'd {{cwd}}',
      steps: [
        { op: 'initialize' },
        { op: 'new_session' },
        { op: 'prompt', text: 'read {{cwd}}/a' },
        { op: 'prompt', content: [{ type: 'resource_link', uri: 'file://{{cwd}}/b', name: 'b' }] },
        { op: 'new_session', cwd: '{{workspaceParent}}/lib' },
        { op: 'list_sessions', cwd: '{{workspaceParent}}/lib' },
        { op: 'delete_session', session: 2 },
      ],
      agentConfig: { tools: { env: { DATA: '{{spill}}' } } },
      flags: { workspaceParent: 'app' },
    },
    'f',
  );
  const e = expandScenarioRoots(s, { cwd: '/w/app', workspaceParent: '/w', spill: '/s' });
  expect(e.steps[4]).toEqual({ op: 'new_session', cwd: '/w/lib' });
  expect(e.steps[5]).toEqual({ op: 'list_sessions', cwd: '/w/lib' });
  expect(e.description).toBe('d {{cwd}}');
  expect(e.steps[2]).toMatchObject({ text: 'read /w/app/a' });
  expect(e.steps[3]).toMatchObject({ content: [{ uri: 'file:///w/app/b' }] });
  expect(e.agentConfig).toEqual({ tools: { env: { DATA: '/s' } } });
});
