import { expect, test } from '@playwright/test';
import { createTools } from './index.js';
import { headOf } from './spill.js';

test('createTools returns every tool once, in a stable order, with its kind and permission', () => {
  const tools = createTools();
  expect(tools.map((t) => [t.name, t.kind, t.permission])).toEqual([
    ['read_file', 'read', 'none'],
    ['write_file', 'edit', 'edit'],
    ['edit_file', 'edit', 'edit'],
    ['glob', 'search', 'none'],
    ['grep', 'search', 'none'],
    ['bash', 'execute', 'command'],
  ]);
});

test('parameter schemas are plain JSON Schema objects derived from the validators', () => {
  for (const tool of createTools()) {
    expect(tool.parameters.type, tool.name).toBe('object');
    expect(tool.parameters.$schema, tool.name).toBeUndefined();
    expect(JSON.stringify(tool.parameters), tool.name).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect(tool.description.length, tool.name).toBeGreaterThan(20);
  }
  const edit = createTools().find((t) => t.name === 'edit_file');
  expect(edit?.parameters).toEqual({
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File to edit, relative to the working directory or absolute.',
      },
      old_string: {
        type: 'string',
        description: 'Exact text to replace, including whitespace and indentation.',
      },
      new_string: { type: 'string', description: 'Text to put in its place.' },
      replace_all: {
        type: 'boolean',
        description: 'Replace every occurrence instead of requiring exactly one.',
      },
    },
    required: ['path', 'old_string', 'new_string'],
  });
});

test('schemas are identical across calls (they are part of request fingerprints)', () => {
  expect(JSON.stringify(createTools().map((t) => t.parameters))).toBe(
    JSON.stringify(createTools().map((t) => t.parameters)),
  );
});

test('headOf cuts at a line end when one is close, and never splits an emoji', () => {
  expect(headOf('short', 10)).toBe('short');
  expect(headOf('aaaa\nbbbb\ncccc', 12)).toBe('aaaa\nbbbb\n');
  expect(headOf('abcdefghij', 4)).toBe('abcd');
  expect(headOf('ab😀cd', 3)).toBe('ab');
  expect(headOf('ab👍🏽cd', 5)).toBe('ab');
});
