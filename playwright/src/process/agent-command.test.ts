import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { resolveAgentCommand } from './agent-command.js';

let project: string;
test.beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'agent-command-'));
  await mkdir(join(project, 'node_modules/.bin'), { recursive: true });
  await writeFile(join(project, 'node_modules/.bin/my-agent'), '');
  await writeFile(join(project, 'agent.mjs'), '');
});
test.afterAll(() => rm(project, { recursive: true, force: true }));

test("the program's relative path is the project's; other arguments only when the project has that file", () => {
  expect(
    resolveAgentCommand(['node_modules/.bin/my-agent', '--model', 'org/model', 'agent.mjs'], project),
  ).toEqual([
    join(project, 'node_modules/.bin/my-agent'),
    '--model',
    'org/model',
    join(project, 'agent.mjs'),
  ]);
  expect(resolveAgentCommand(['node', 'agent.mjs', '--acp'], project)).toEqual([
    'node',
    join(project, 'agent.mjs'),
    '--acp',
  ]);
  // A command on PATH, and its arguments, as written.
  expect(resolveAgentCommand(['goose', 'acp'], project)).toEqual(['goose', 'acp']);
});

test('a program path missing from the project is an error naming it as written and the project', () => {
  expect(() => resolveAgentCommand(['./bin/agent'], project)).toThrow(
    `agent command: ./bin/agent does not exist in the project ${project}`,
  );
  expect(() => resolveAgentCommand(['node', 'dist/main.js'], project)).toThrow(
    `agent command: dist/main.js does not exist in the project ${project}`,
  );
});
