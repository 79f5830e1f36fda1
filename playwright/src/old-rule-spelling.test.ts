import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '@acp-snapshot/emulator';
import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { oldSpellingWarning, readOldSpelling } from './old-rule-spelling.js';

const HARNESS = join(import.meta.dirname, 'index.ts');
const FAKE = join(import.meta.dirname, 'testing/agents/fake-agent.mjs');
const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

/** The rules of one config, in the earlier spelling and in the one spelling. */
const OLD_IDS = `[
    { path: 'prompt_cache_key', name: 'cacheKey' },
    { path: 'metadata.user_id', name: 'userId' },
    { pattern: '(?<=session )[0-9a-f-]{36}', name: 'uuid' },
  ]`;
const NEW_IDS = `[
    { path: '/prompt_cache_key', placeholder: '{{cacheKey}}' },
    { path: '/metadata/user_id', placeholder: '{{userId}}' },
    { pattern: '(?<=session )[0-9a-f-]{36}', placeholder: '{{uuid}}' },
  ]`;

test('the earlier spelling reads as the one spelling, and the warning names each rule and what to write', () => {
  const { opts, found } = readOldSpelling({
    agents: {
      a: {
        command: ['x'],
        normalize: {
          paths: ['result.agentInfo.version'],
          patterns: [{ pattern: 'id-\\d+', name: 'id' } as never],
        },
        requestIds: [{ path: 'input[*].id', name: 'itemId' } as never],
      },
    },
    model: {
      kind: 'http',
      ids: [{ path: 'prompt_cache_key', name: 'cacheKey' } as never, { path: '/ok', placeholder: '{{ok}}' }],
    },
  });
  expect(opts.agents.a?.normalize).toEqual({
    paths: ['/result/agentInfo/version'],
    patterns: [{ pattern: 'id-\\d+', placeholder: '{{id}}' }],
  });
  expect(opts.agents.a?.requestIds).toEqual([{ path: '/input/*/id', placeholder: '{{itemId}}' }]);
  expect(opts.model).toEqual({
    kind: 'http',
    ids: [
      { path: '/prompt_cache_key', placeholder: '{{cacheKey}}' },
      { path: '/ok', placeholder: '{{ok}}' },
    ],
  });
  expect(oldSpellingWarning(found).split('\n').slice(2)).toEqual([
    '  agents.a.normalize.paths[0]: "result.agentInfo.version" -> { path: "/result/agentInfo/version", placeholder: "{{volatile}}" }',
    '  agents.a.normalize.patterns[0]: { pattern: "id-\\\\d+", name: "id" } -> { pattern: "id-\\\\d+", placeholder: "{{id}}" }',
    '  agents.a.requestIds[0]: { path: "input[*].id", name: "itemId" } -> { path: "/input/*/id", placeholder: "{{itemId}}" }',
    '  model.ids[0]: { path: "prompt_cache_key", name: "cacheKey" } -> { path: "/prompt_cache_key", placeholder: "{{cacheKey}}" }',
  ]);
});

test('a config in the earlier spelling loads, warns once per run and replays the snapshots recorded with the one spelling', async () => {
  // Nested runs transpile the harness from source: seconds each on a loaded machine.
  test.setTimeout(240_000);
  const project = await mkdtemp(join(tmpdir(), 'old-spelling-'));
  const emulator = await startEmulator({
    script: {
      responses: [1, 2].map(() => ({
        reply: { text: 'Noted 📝 (记下了).' },
        chunking: { textPieceChars: 4 },
      })),
    },
  });
  try {
    const config = (ids: string) => `import { defineAcpConfig } from ${JSON.stringify(HARNESS)};
// The rules of a project written before 0.1 (comments and all).
export default defineAcpConfig({
  agents: { fake: { command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE)}, 'model-ids'], env: { MODEL_URL: '{{modelBaseUrl}}' } } },
  model: { kind: 'http', ids: ${ids} },
  record: { upstream: { baseUrlEnv: 'UPSTREAM' } },
  testDir: '.',
  coverage: false,
  playwright: { workers: 2, reporter: 'line', outputDir: 'test-results' },
});
`;
    await writeFile(join(project, 'package.json'), '{ "type": "module" }\n');
    await writeFile(
      join(project, 'tests.spec.ts'),
      `import { expect, test } from ${JSON.stringify(HARNESS)};
for (const n of [1, 2]) test('turn ' + n, async ({ acp }) => {
  await acp.initialize();
  await acp.newSession();
  expect((await acp.prompt('Remember this, please.')).text).toBe('Noted 📝 (记下了).');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
`,
    );
    const run = async (ids: string, ...args: string[]) => {
      await writeFile(join(project, 'playwright.config.ts'), config(ids));
      const r = await execa(
        process.execPath,
        [PLAYWRIGHT_CLI, 'test', '--config=playwright.config.ts', ...args],
        {
          cwd: project,
          reject: false,
          all: true,
          env: {
            FORCE_COLOR: '0',
            UPSTREAM: emulator.url,
            TEST_WORKER_INDEX: undefined,
            TEST_PARALLEL_INDEX: undefined,
          },
          extendEnv: true,
        },
      );
      return { exitCode: r.exitCode, output: r.all ?? '' };
    };
    const recorded = await run(NEW_IDS, '--project=fake:record');
    expect(recorded.exitCode, recorded.output).toBe(0);
    const log = await readFile(join(project, '__acp__/tests.spec.ts/fake/turn-1/exchanges.jsonl'), 'utf8');
    expect(log).toContain('"prompt_cache_key":"{{cacheKey}}"');
    expect(log).toContain('"user_id":"{{userId}}"');
    expect(log).toContain('(session {{uuid#1}})');

    const one = await run(NEW_IDS);
    expect(one.exitCode, one.output).toBe(0);
    expect(one.output).not.toContain('earlier spelling');

    const old = await run(OLD_IDS);
    expect(old.exitCode, old.output).toBe(0);
    expect(old.output).toContain('2 passed');
    // Once for the run, though the runner and both workers load the config.
    expect(old.output.split('earlier spelling').length - 1).toBe(1);
    expect(old.output).toContain(
      '  model.ids[0]: { path: "prompt_cache_key", name: "cacheKey" } -> { path: "/prompt_cache_key", placeholder: "{{cacheKey}}" }',
    );
    expect(old.output).toContain(
      '  model.ids[2]: { pattern: "(?<=session )[0-9a-f-]{36}", name: "uuid" } -> { pattern: "(?<=session )[0-9a-f-]{36}", placeholder: "{{uuid}}" }',
    );

    // The rules are what makes the replay match: without them the same recording is refused.
    const none = await run('[]');
    expect(none.exitCode).toBe(1);
  } finally {
    await emulator.close();
    await rm(project, { recursive: true, force: true });
  }
});
