// docs/contract.md's table of the agent's environment is the environment agentEnv() builds: a variable the
// code passes and the doc leaves out fails, and so does one the doc names that the code does not have.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_ENV } from '@acp-snapshot/core';
import { expect, test } from '@playwright/test';
import { marked, type Tokens } from 'marked';
import { agentEnv } from './agent-env.js';

const DOC = 'docs/contract.md';
const SECTION = 'The environment';

/** The variable names in the first column of the table under a heading of a markdown text. */
function documentedVariables(markdown: string, section: string): string[] {
  const tokens = marked.lexer(markdown);
  const start = tokens.findIndex((t) => t.type === 'heading' && (t as Tokens.Heading).text === section);
  if (start < 0) throw new Error(`${DOC}: no heading "${section}"`);
  const end = tokens.findIndex((t, i) => i > start && t.type === 'heading');
  const table = tokens.slice(start, end < 0 ? undefined : end).find((t) => t.type === 'table') as
    | Tokens.Table
    | undefined;
  if (!table) throw new Error(`${DOC}, "${section}": no table of variables`);
  return table.rows.map((row) => row[0]!.text.replace(/`/g, '').trim());
}

/** Every variable agentEnv() can pass: record mode with every optional input given. */
function everyVariable(): string[] {
  return Object.keys(
    agentEnv(
      {
        mode: 'record',
        scenario: 's',
        fixture: '/f',
        override: '/o',
        persistRoot: '/p',
        spillRoot: '/s',
        home: '/h',
        tmp: '/r/tmp',
        roots: { root: '/r' },
        sidecars: '/c',
        baseUrl: 'http://127.0.0.1:1',
        apiKey: 'sk-x',
        agentConfig: '/a',
      },
      { PATH: '/usr/bin', LANG: 'C.UTF-8' },
    ),
  );
}

/** What differs between the doc's variables and the code's, in words. */
function contractDiff(documented: string[], passed: string[]): string[] {
  const inCode = new Set([...passed, ...Object.values(CONTRACT_ENV)]);
  const inDoc = new Set(documented);
  return [
    ...[...inCode]
      .filter((v) => !inDoc.has(v))
      .map((v) => `${v}: passed to the agent, missing from ${DOC}, "${SECTION}"`),
    ...[...inDoc]
      .filter((v) => !inCode.has(v))
      .map((v) => `${v}: named in ${DOC}, "${SECTION}", but agentEnv() never passes it`),
  ];
}

test('docs/contract.md lists exactly the variables agentEnv() passes, CONTRACT_ENV included', () => {
  const doc = readFileSync(join(import.meta.dirname, '../../..', DOC), 'utf8');
  const documented = documentedVariables(doc, SECTION);
  expect(documented).toContain(CONTRACT_ENV.mode);
  expect(contractDiff(documented, everyVariable())).toEqual([]);
});

test('a contract variable missing from the doc, or one the code does not have, is named', () => {
  const doc = [
    '# Contract',
    '## The environment',
    '| variable | what |',
    '| --- | --- |',
    '| `ACP_SNAPSHOT_MODE` | the mode |',
    '| `ACP_SNAPSHOT_GONE` | removed long ago |',
  ].join('\n');
  const documented = documentedVariables(doc, SECTION);
  expect(documented).toEqual(['ACP_SNAPSHOT_MODE', 'ACP_SNAPSHOT_GONE']);
  const diff = contractDiff(documented, everyVariable());
  expect(diff).toContain(
    'ACP_SNAPSHOT_FIXTURE: passed to the agent, missing from docs/contract.md, "The environment"',
  );
  expect(diff).toContain(
    'ACP_SNAPSHOT_GONE: named in docs/contract.md, "The environment", but agentEnv() never passes it',
  );
  expect(diff).not.toContain(expect.stringMatching(/^ACP_SNAPSHOT_MODE:/));
});
