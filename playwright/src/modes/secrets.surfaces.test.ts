/**
 * One secrets module on every surface: a secret of each kind (a credential of each well-known format, the key
 * value, the real home, the user name, anyone's home) planted in the ACP wire, the session log, the workspace,
 * a sidecar and a model request body (its exchange log and sidecars) is scrubbed by recording (or, in a
 * sidecar named by its content's hash, refused) and rejected by the guards, each named by file, line and rule
 * with the command that fixes it.
 */

import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startModelServer, writeExchangeLog } from '@acp-snapshot/model-http';
import { startFakeUpstream } from '@acp-snapshot/model-http/testing';
import { expect, test } from '@playwright/test';
import { checkFixtures } from '../rules/guards.js';
import { checkSnapshotTrees } from '../rules/snapshot-tree.js';
import { writeScenarioFixtures } from './fixture-write.js';

// Each made of parts, so no scanner mistakes this file for a leak. Shapes as the providers issue them.
const KEY_VALUE = ['profile', 'key', 'value', '7f3a9c'].join('-');
const SECRETS: ReadonlyArray<{ rule: string; what: string; value: string }> = [
  { rule: 'google-api-key', what: 'a Google API key', value: `AIza${'Sy'}D4f8Gh2Jk6Lm0Np3Qr7St1Uv5Wx9Yz2Ab` },
  { rule: 'aws', what: 'an AWS access key', value: `AKIA${'Z3MSJV4WXQ7N2K5P'}` },
  { rule: 'github', what: 'a GitHub token', value: `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}` },
  {
    rule: 'privatekey',
    what: 'a private key',
    value: `-----BEGIN RSA ${'PRIVATE KEY'}-----\n${'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun'.repeat(3)}\n-----END RSA ${'PRIVATE KEY'}-----`,
  },
  {
    rule: 'jwt',
    what: 'a JSON Web Token',
    value: `${'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9'}.${'eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ'}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`,
  },
  { rule: 'anthropic', what: 'an Anthropic API key', value: `sk-ant-api03-${'Xy7'.repeat(31)}AA` },
  { rule: 'sk-key', what: 'an API key (sk-...)', value: `sk-proj-${'q8W2e4R6t8Y0u2I4o6P8a0S2d4F6'}` },
  {
    rule: 'slack',
    what: 'a Slack token',
    value: `xoxb-${'1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'}`,
  },
  { rule: 'bearer', what: 'a bearer token', value: `Bearer ${'tok_9f8e7d6c5b4a'}` },
  { rule: 'key-value', what: 'the API key value', value: KEY_VALUE },
  // This machine's home and user name (alice's, below), and anyone else's home.
  { rule: 'real-home', what: 'the real home directory', value: '/home/alice/.ssh/config' },
  { rule: 'user', what: 'the user name', value: 'owner: alice' },
  { rule: 'other-home', what: 'a real home directory path', value: '/Users/carol/Desktop/notes.txt' },
];
const guardOptions = { home: '/home/alice', user: 'alice', secretValues: [KEY_VALUE] };

/** One line per secret, as each surface writes it (JSON-escaped: a key block's newlines become `\n`). */
const surfaces = {
  'stdout.expected.jsonl': (s: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: '{{sessionId}}',
        update: { sessionUpdate: 'agent_message_chunk', content: { text: s } },
      },
    }),
  'session.jsonl': (s: string) =>
    JSON.stringify({ seq: 1, ts: 1, event: { type: 'tool/result', turn: 0, output: `cat .env\n${s}\n` } }),
  'workspace.expected.json': (s: string) => JSON.stringify({ path: '.env', content: `TOKEN=${s}\n` }),
};

const linesFor = (surface: (s: string) => string) => `${SECRETS.map((s) => surface(s.value)).join('\n')}\n`;

test('record scrubs a secret of each kind from the wire, the log and the workspace; the guards reject each left in', async () => {
  const fx = test.info().outputPath('fixtures');
  const texts = Object.fromEntries(
    Object.entries(surfaces).map(([file, surface]) => [file, linesFor(surface)]),
  );
  const write = (name: string) =>
    writeScenarioFixtures(
      {
        dir: join(fx, 'scenarios', name),
        sidecarsDir: join(fx, 'sidecars'),
        sessionText: texts['session.jsonl']!,
        stdoutText: texts['stdout.expected.jsonl']!,
        workspaceText: texts['workspace.expected.json']!,
        sidecars: {},
      },
      { values: [KEY_VALUE], home: '/home/alice', user: 'alice' },
    );
  await write('recorded');
  // A scenario written by hand (or by an older recorder) with the very same texts, unscrubbed.
  const raw = join(fx, 'scenarios', 'raw');
  await mkdir(raw, { recursive: true });
  for (const [file, text] of Object.entries(texts)) await writeFile(join(raw, file), text);

  for (const file of Object.keys(surfaces)) {
    const recorded = await readFile(join(fx, 'scenarios', 'recorded', file), 'utf8');
    for (const s of SECRETS) expect(recorded, `${file}: ${s.rule}`).not.toContain(s.value.split('\n')[0]);
    // Still one JSON value per line: a replacement never breaks the file's form.
    for (const line of recorded.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  }
  const messages = (await checkFixtures(fx, { ...guardOptions, displayBase: test.info().outputPath() }))
    .filter((v) => v.rule === 'secrets')
    .map((v) => v.message);
  expect(messages).toEqual(
    Object.keys(surfaces)
      .sort()
      .flatMap((file) =>
        SECRETS.map(
          (s, i) =>
            `fixtures/scenarios/raw/${file}:${i + 1}: contains ${s.what} (rule ${s.rule}); re-record it (record mode scrubs it): npm run record -- raw`,
        ),
      ),
  );
});

test("model-http's exchange log holds no secret of a request body; the snapshot guards reject one left in", async () => {
  const up = await startFakeUpstream({ deltas: ['noted'] });
  const rec = await startModelServer({
    mode: 'record',
    upstream: { baseUrl: up.url, apiKeyEnv: 'MODEL_KEY' },
    env: { MODEL_KEY: KEY_VALUE },
    // As the harness starts it (model/http-model.ts): the machine's home and user name are roots of the test.
    normalize: { roots: { realHome: '/home/alice', user: 'alice' } },
  });
  try {
    // A tool's output the agent sends back to the model, with every secret in it; the key in its header too.
    const toolOutput = SECRETS.map((s) => s.value).join('\n');
    const res = await fetch(`${rec.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY_VALUE}` },
      body: JSON.stringify({
        model: 'm',
        messages: [
          { role: 'user', content: 'what is in .env?' },
          { role: 'tool', tool_call_id: 'call_1', content: toolOutput },
        ],
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
  } finally {
    await rec.close();
    await up.close();
  }
  const tree = test.info().outputPath('tests', '__acp__');
  const dir = join(tree, 'reads-env');
  await mkdir(dir, { recursive: true });
  writeExchangeLog(join(dir, 'exchanges.jsonl'), rec.exchanges, { sidecarsDir: join(tree, 'sidecars') });
  const written = await readdir(tree, { recursive: true, withFileTypes: true });
  for (const e of written.filter((x) => x.isFile())) {
    const text = await readFile(join(e.parentPath, e.name), 'utf8');
    for (const s of SECRETS) expect(text, `${e.name}: ${s.rule}`).not.toContain(s.value.split('\n')[0]);
  }
  const guard = (root: string) =>
    checkSnapshotTrees(root, {
      ...guardOptions,
      fix: 'npx playwright test --project=app:record -g reads-env',
    });
  expect(
    (await guard(test.info().outputPath('tests'))).violations.filter((v) => v.rule === 'secrets'),
  ).toEqual([]);

  // The ACP wire of a spec test with the same output in it, as an older recorder would have kept it.
  const raw = test.info().outputPath('raw', '__acp__', 'reads-env');
  await mkdir(raw, { recursive: true });
  await writeFile(join(raw, 'stdout.jsonl'), linesFor(surfaces['stdout.expected.jsonl']));
  const { violations } = await guard(test.info().outputPath('raw'));
  expect(violations.filter((v) => v.rule === 'secrets').map((v) => v.message)).toEqual(
    SECRETS.map(
      (s, i) =>
        `__acp__/reads-env/stdout.jsonl:${i + 1}: contains ${s.what} (rule ${s.rule}); scrub it and re-record: npx playwright test --project=app:record -g reads-env`,
    ),
  );
});

test('a sidecar holding a secret of any kind is refused by recording (its name is its hash) and rejected by the guards', async () => {
  const fx = test.info().outputPath('fixtures');
  const sidecarsDir = join(fx, 'sidecars');
  for (const s of SECRETS) {
    const content = JSON.stringify({ role: 'system', content: `You run on this machine.\n${s.value}\n` });
    const hash = createHash('sha256').update(content).digest('hex');
    await expect(
      writeScenarioFixtures(
        {
          dir: join(fx, 'scenarios', 'recorded'),
          sidecarsDir,
          sessionText: '',
          stdoutText: '',
          workspaceText: '{}',
          sidecars: { [hash]: content },
        },
        { values: [KEY_VALUE], home: '/home/alice', user: 'alice' },
      ),
      s.rule,
    ).rejects.toThrow(`sidecar ${hash} holds a secret`);
    // The same sidecar written by hand (or by an older recorder).
    await writeFile(join(sidecarsDir, `${hash}.json`), `${content}\n`);
  }
  const found = (await checkFixtures(fx, { ...guardOptions, displayBase: test.info().outputPath() }))
    .filter((v) => v.rule === 'secrets')
    .map((v) => v.message.replace(/[0-9a-f]{64}/, 'HASH'));
  expect(found.sort()).toEqual(
    SECRETS.map(
      (s) =>
        `fixtures/sidecars/HASH.json:1: contains ${s.what} (rule ${s.rule}); scrub it (record mode scrubs automatically) and re-record`,
    ).sort(),
  );
});
