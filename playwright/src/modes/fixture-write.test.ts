import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { writeScenarioFixtures } from './fixture-write.js';

test('fixtures are written scrubbed, sidecars once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'record-test-'));
  try {
    const w = {
      dir: join(dir, 'scenarios', 's'),
      sidecarsDir: join(dir, 'sidecars'),
      sessionText: '{"cwd":"/home/alice/p"}\n',
      stdoutText: '{"k":"sk-0123456789abcdef0123"}\n',
      workspaceText:
        '{\n  "files": [\n    {\n      "path": "a.txt",\n      "change": "added",\n      "kind": "text",\n      "lines": [\n        "/home/alice/x"\n      ]\n    }\n  ]\n}\n',
      sidecars: { ['a'.repeat(64)]: '{"prompt":"hi"}\n' },
    };
    const secrets = { values: [], home: '/home/alice', user: 'alice' };
    expect(await writeScenarioFixtures(w, secrets)).toEqual([
      join(dir, 'sidecars', `${'a'.repeat(64)}.json`),
    ]);
    expect(await writeScenarioFixtures(w, secrets)).toEqual([]);
    expect(await readFile(join(w.dir, 'session.jsonl'), 'utf8')).toBe('{"cwd":"{{realHome}}/p"}\n');
    expect(await readFile(join(w.dir, 'stdout.expected.jsonl'), 'utf8')).toBe('{"k":"sk-[redacted]"}\n');
    expect(await readFile(join(w.dir, 'workspace.expected.json'), 'utf8')).toBe(
      w.workspaceText.replace('/home/alice', '{{realHome}}'),
    );
    expect(await readdir(w.sidecarsDir)).toEqual([`${'a'.repeat(64)}.json`]);
    await expect(
      writeScenarioFixtures({ ...w, sidecars: { ['b'.repeat(64)]: 'prompt for alice' } }, secrets),
    ).rejects.toThrow(`sidecar ${'b'.repeat(64)} holds a secret`);
  } finally {
    await rm(dir, { recursive: true });
  }
});
