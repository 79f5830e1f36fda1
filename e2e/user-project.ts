/**
 * A user's project outside the repository: a `defineAcpConfig` config, one spec, and a tiny ACP agent of its
 * own installed in it, whose model calls go through the harness's HTTP model server (recorded against an
 * upstream, replayed keylessly). The agent behaves like the real ones that broke portability: it quotes a file
 * of its own install by absolute path on stdout (qwen-code's bundled skills) and in its request, and it sends
 * the constant `/root` in its request metadata (codex's `agent_name`). Its commands run as any account.
 */
import { chown, cp, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@acp-snapshot/playwright/testing';
import { execa } from 'execa';

/** The script the upstream (an emulator) serves: the model quotes the cwd, the agent's skills and `</root>`. */
export const USER_PROJECT_MODEL = {
  vars: {
    cwd: { from: 'system', pattern: 'Working directory: (\\S+)' },
    skills: { from: 'system', pattern: 'Your skills are in (\\S+)\\.' },
  },
  responses: [
    {
      match: { bodyIncludes: 'Where are your skills?' },
      reply: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the emulator's own template, filled from the request
        text: 'I am </root> 🤖; my skills are in ${skills}/SKILL.md and I work in ${cwd}.',
        // Given, not estimated from the request's length (which moves with the path of the checkout).
        usage: { promptTokens: 64, completionTokens: 40 },
      },
      chunking: { textPieceChars: 7 },
    },
  ],
};

const AGENT = `// A tiny ACP agent installed in the project: one session, one model call per prompt.
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const skills = join(here, 'bundled', 'skills');
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const update = (sessionId, text) =>
  send({ method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
let cwd = '';
createInterface({ input: process.stdin }).on('line', async (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  if (msg.method === 'initialize')
    return send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  if (msg.method === 'session/new') {
    cwd = msg.params.cwd;
    return send({ id: msg.id, result: { sessionId: 'sess-1' } });
  }
  if (msg.method === 'session/prompt') {
    const { sessionId } = msg.params;
    update(sessionId, 'Bundled skill: ' + join(skills, 'review', 'SKILL.md') + '\\n');
    update(sessionId, 'Project tests: ' + join(here, '..', 'tests') + '\\n');
    const res = await fetch(process.env.MODEL_URL + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MODEL_KEY },
      body: JSON.stringify({
        model: 'tiny-model',
        metadata: { agent_name: '/root' },
        messages: [
          { role: 'system', content: 'You are </root>. Your skills are in ' + skills + '. Working directory: ' + cwd },
          { role: 'user', content: msg.params.prompt.map((b) => b.text ?? '').join('') },
        ],
      }),
    });
    const body = await res.json();
    update(sessionId, body.choices?.[0]?.message?.content ?? 'model error: ' + JSON.stringify(body));
    return send({ id: msg.id, result: { stopReason: 'end_turn' } });
  }
  send({ id: msg.id, error: { code: -32601, message: 'Method not found: ' + msg.method } });
});
`;

const CONFIG = `import { defineAcpConfig } from '@acp-snapshot/playwright';

export default defineAcpConfig({
  agents: {
    tiny: {
      command: ['node', './agent/main.mjs'],
      env: { MODEL_URL: '{{modelBaseUrl}}', MODEL_KEY: 'sk-replay-dummy' },
    },
  },
  model: { kind: 'http' },
  record: { upstream: { baseUrlEnv: 'MODEL_UPSTREAM_URL', apiKeyEnv: 'TINY_MODEL_KEY' } },
  playwright: { workers: 1, reporter: 'list' },
});
`;

const SPEC = `import { expect, test } from '@acp-snapshot/playwright';

test('where the skills are', async ({ acp, roots }) => {
  await acp.initialize();
  await acp.newSession();
  const turn = await acp.prompt('Where are your skills?');
  expect(turn.stopReason).toBe('end_turn');
  expect(turn.text).toContain('I work in ' + roots.cwd + '.');
  await acp.close();
  await expect(acp).toMatchAcpSnapshot();
});
`;

/** The directory of the test's recorded files (exchange log and snapshots). */
export const RECORDED = 'tests/__acp__/where.spec.mts/tiny/where-the-skills-are';

/** An account to run the project's commands as: `uid:gid`, or undefined for the current one. */
export interface Account {
  uid: number;
  gid: number;
}

/**
 * Writes the project into `dir` (its node_modules is the repository's: the harness as a user resolves it).
 * `vendored`: the agent is a package of its own inside a project without a package.json, so its install
 * directory (`agent/`) is not the project's.
 */
export async function writeUserProject(dir: string, opts: { vendored?: boolean } = {}): Promise<void> {
  await mkdir(join(dir, 'agent', 'bundled', 'skills', 'review'), { recursive: true });
  await mkdir(join(dir, 'tests'), { recursive: true });
  const pkg = (name: string) => `{ "name": "${name}", "private": true, "type": "module" }\n`;
  if (opts.vendored) await writeFile(join(dir, 'agent', 'package.json'), pkg('tiny-agent'));
  else await writeFile(join(dir, 'package.json'), pkg('tiny-agent-tests'));
  await writeFile(join(dir, 'agent', 'main.mjs'), AGENT);
  await writeFile(join(dir, 'agent', 'bundled', 'skills', 'review', 'SKILL.md'), '# review\n');
  // ES modules by their names: a vendored project has no package.json to say so.
  await writeFile(join(dir, 'playwright.config.mts'), CONFIG);
  await writeFile(join(dir, 'tests', 'where.spec.mts'), SPEC);
  await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
}

/** A copy of the project at another path (a second checkout), recorded files included. */
export async function copyUserProject(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true, verbatimSymlinks: true });
}

/** Gives the project (not the repository its node_modules links to) to `account`. */
export async function giveUserProject(dir: string, account: Account): Promise<void> {
  await chown(dir, account.uid, account.gid);
  for (const rel of await readdir(dir, { recursive: true }))
    if (!String(rel).startsWith('node_modules'))
      await chown(join(dir, String(rel)), account.uid, account.gid);
}

/** The recorded files of the test, by name. */
export async function recordedFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const at = join(dir, RECORDED);
  for (const f of (await readdir(at)).sort()) out[f] = await readFile(join(at, f), 'utf8');
  return out;
}

/**
 * Runs `npx playwright test ARGS` in the project (by Playwright's own CLI script), as `account` when given
 * (setpriv: its uid, gid and groups, and the environment of a login: its HOME, USER and PATH).
 */
export async function runUserProject(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
  account?: Account,
): Promise<{ exitCode: number; output: string }> {
  const playwright = [
    process.execPath,
    join(REPO_ROOT, 'node_modules/@playwright/test/cli.js'),
    'test',
    ...args,
  ];
  const vars = Object.entries({ ...env, FORCE_COLOR: '0' }).map(([k, v]) => `${k}=${v}`);
  const [file, ...rest] = account
    ? [
        'setpriv',
        `--reuid=${account.uid}`,
        `--regid=${account.gid}`,
        '--init-groups',
        '--reset-env',
        'env',
        ...vars,
        ...playwright,
      ]
    : playwright;
  // A clean environment either way: the account's login one, or this account's PATH and HOME.
  const own = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: homedir(), ...env, FORCE_COLOR: '0' };
  const r = await execa(file!, rest, { cwd: dir, all: true, reject: false, extendEnv: false, env: own });
  return { exitCode: r.exitCode ?? 1, output: r.all ?? '' };
}
