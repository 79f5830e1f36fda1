/**
 * Record modes of the HTTP model, through the package's fixtures on our agent (its OpenAI-compatible plugin
 * pointed at `{{modelBaseUrl}}`), against the bundled emulator: a three-turn test recorded in `all` mode and
 * committed; its third prompt changed and re-recorded with ACP_SNAPSHOT_RECORD_MODE=missing (over the
 * project's `record: 'all'`), which sends only the third turn's call upstream and keeps the first two
 * turns' exchanges byte for byte; `acp-snapshot review` lists what was kept, added and removed; and the new
 * log replays keylessly with the emulator gone.
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, startEmulator } from '@acp-snapshot/emulator';
import { type AcpClient, expect, RECORD_MODE_ENV, test } from '@acp-snapshot/playwright';
import { REPO_ROOT } from '@acp-snapshot/playwright/testing';
import { execa } from 'execa';
import { OUR_AGENT_OVER_HTTP as ourHttpAgent } from './our-agent-over-http.js';

const ours = ourHttpAgent;

// A project of its own, in git: the exchange log lies where defineAcpConfig keeps it, beside the snapshots.
const project = await mkdtemp(join(tmpdir(), 'acp-record-modes-'));
const logRel = 'tests/__acp__/three-turns.spec.ts/agent/three-turns/exchanges.jsonl';
const exchanges = join(project, logRel);
const UPSTREAM = 'ACP_RECORD_MODES_TEST_UPSTREAM';
const PROMPTS = ['Where are you working? 👋', 'What does notes.txt say?', 'Answer in one line: done?'];
const CHANGED = 'Answer in three words: done?';
// Like a real model: the absolute cwd quoted back, emoji and CJK cut across pieces, a tool call in turn 2.
const vars = { cwd: { from: 'system' as const, pattern: 'Working directory: (\\S+)' } };
const chunking = { textPieceChars: 3 };
// biome-ignore-start lint/suspicious/noTemplateCurlyInString: the emulator's own templates, filled from the request
const FIRST_ANSWERS = [
  { reply: { text: 'I am in ${cwd} 📂 工作中.' }, chunking },
  { reply: { toolCalls: [{ name: 'read_file', arguments: { path: '${cwd}/notes.txt' } }] }, chunking },
  { reply: { text: 'It says: 你好 🌏 from ${cwd}/notes.txt.' }, chunking },
  { reply: { text: 'Done ✅ in one line.' }, chunking },
];
// biome-ignore-end lint/suspicious/noTemplateCurlyInString: the emulator's own templates

let emulator: Emulator | undefined;
let before = '';

const git = (...args: string[]) =>
  execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@test.invalid', ...args], {
    cwd: project,
    env: { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_CEILING_DIRECTORIES: tmpdir() },
  });

async function threeTurns(acp: AcpClient, cwd: string, prompts: string[]): Promise<string[]> {
  await writeFile(join(cwd, 'notes.txt'), '你好 🌏\n');
  await acp.initialize();
  await acp.newSession();
  const texts: string[] = [];
  for (const p of prompts) {
    const turn = await acp.prompt(p);
    expect(turn.stopReason).toBe('end_turn');
    texts.push(turn.text);
  }
  await acp.close();
  return texts;
}

async function upstream(responses: typeof FIRST_ANSWERS): Promise<Emulator> {
  await emulator?.close();
  emulator = await startEmulator({ script: { vars, responses } });
  process.env[UPSTREAM] = emulator.url;
  return emulator;
}

test.describe.configure({ mode: 'serial' });
test.afterAll(async () => {
  await emulator?.close();
  delete process.env[RECORD_MODE_ENV];
  rmSync(project, { recursive: true, force: true });
});

test.describe('recorded', () => {
  // The project's :record twin: defineAcpConfig gives it record 'all' unless told otherwise.
  test.use({
    agentProfile: ours,
    model: { kind: 'http', record: 'all', exchanges, upstream: { baseUrlEnv: UPSTREAM } },
  });

  test.describe('in all mode', () => {
    test.beforeAll(() => upstream(FIRST_ANSWERS));
    test('three turns recorded, then committed', async ({ acp, roots }) => {
      const texts = await threeTurns(acp, roots.cwd, PROMPTS);
      expect(texts[2]).toBe('Done ✅ in one line.');
      // Turn 2 took two calls: the tool call, then the answer with its result.
      expect(emulator!.requests).toHaveLength(4);
    });
  });

  test.describe('in missing mode', () => {
    test.beforeAll(async () => {
      before = readFileSync(exchanges, 'utf8');
      await git('init', '-q');
      await git('add', '-A');
      await git('commit', '-q', '-m', 'three turns');
      // For this run only, over the project's record: 'all'.
      process.env[RECORD_MODE_ENV] = 'missing';
      await upstream([{ reply: { text: 'Done ✅, three words.' }, chunking }]);
    });
    test('the third prompt changed, re-recorded with ACP_SNAPSHOT_RECORD_MODE=missing: only its call goes upstream', async ({
      acp,
      roots,
    }) => {
      const texts = await threeTurns(acp, roots.cwd, [PROMPTS[0]!, PROMPTS[1]!, CHANGED]);
      // Turns 1 and 2 were answered from the log (the emulator now knows only the new answer).
      expect(texts[0]).toContain('📂 工作中.');
      expect(texts[1]).toContain('你好 🌏');
      expect(texts[2]).toBe('Done ✅, three words.');
      expect(emulator!.requests).toHaveLength(1);
      expect(JSON.stringify(emulator!.requests[0])).toContain(CHANGED);
    });
  });
});

test.describe('after the re-recording', () => {
  test.beforeAll(async () => {
    delete process.env[RECORD_MODE_ENV];
    await emulator?.close();
    emulator = undefined;
    delete process.env[UPSTREAM];
  });

  test('the first two turns exchanges are byte-identical; the third turn is new', async () => {
    expect(before, 'the recordings ran first').not.toBe('');
    const after = readFileSync(exchanges, 'utf8');
    const [oldLines, newLines] = [before, after].map((t) => t.split('\n'));
    // Header, turn 1 (one call), turn 2 (two calls): the same bytes, in the same place.
    expect(newLines!.slice(0, 4)).toEqual(oldLines!.slice(0, 4));
    expect(newLines).toHaveLength(oldLines!.length);
    expect(newLines![4]).toContain(CHANGED);
    expect(oldLines![4]).toContain(PROMPTS[2]);
    expect(after).not.toContain(project);
  });

  test('acp-snapshot review lists the exchanges kept, added and removed', async () => {
    const r = await execa(process.execPath, [join(REPO_ROOT, 'playwright/dist/cli.js'), 'review'], {
      cwd: project,
      env: {
        ACP_SNAPSHOT_PROJECT_ROOT: project,
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_CEILING_DIRECTORIES: tmpdir(),
      },
      reject: false,
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(logRel);
    expect(lines).toContain('  kept 3, re-recorded 0, added 1, removed 1');
    expect(lines.filter((l) => l.startsWith('    kept: exchange '))).toHaveLength(3);
    expect(lines).toContain(`    added: exchange 3 POST /chat/completions ${JSON.stringify(CHANGED)}`);
    expect(lines).toContain(
      `    removed: exchange 3 of the old log POST /chat/completions ${JSON.stringify(PROMPTS[2])}`,
    );
  });

  test.describe('replayed', () => {
    test.use({ agentProfile: ours, model: { kind: 'http', exchanges } });
    test('the re-recorded log replays keylessly, the emulator gone', async ({ acp, roots }) => {
      const texts = await threeTurns(acp, roots.cwd, [PROMPTS[0]!, PROMPTS[1]!, CHANGED]);
      expect(texts[2]).toBe('Done ✅, three words.');
    });
  });
});
