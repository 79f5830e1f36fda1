/**
 * `toMatchAcpSnapshot` on snapshot files on disk, against a real ACP agent: the profile's normalize rules
 * shape what is compared, a difference fails naming the file and the field, attaches its diff and the
 * conversation, and leaves the snapshot as it is.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { test as fixtures } from './fixtures.js';
import { acpSnapshotTexts, expect, fileName } from './matchers.js';

const FAKE = join(import.meta.dirname, 'testing', 'agents', 'fake-agent.mjs');

fixtures.describe('an agent that echoes its prompt, whose profile normalizes a run number', () => {
  fixtures.use({
    agentProfile: {
      command: [process.execPath, FAKE, 'echo'],
      normalize: { patterns: [{ pattern: 'run-\\d+', placeholder: '{{run}}' }] },
    },
  });

  fixtures(
    'a stdout snapshot that differs fails naming its file and field, with the diff and the conversation attached',
    async ({ acp }, testInfo) => {
      const dir = fileName(testInfo.title);
      const file = (name: string) => testInfo.snapshotPath(dir, name);
      try {
        await acp.initialize();
        await acp.newSession();
        expect((await acp.prompt('hello from run-4711')).stopReason).toBe('end_turn');
        expect(await acp.close()).toBe(true);
        const texts = await acpSnapshotTexts(acp);
        // The rule applies before any comparison: no run number is left to differ.
        expect(texts.stdout).toContain('hello from {{run}}');
        expect(texts.stdout).not.toContain('4711');
        const committed = texts.stdout.replace('hello from {{run}}', 'goodbye from {{run}}');
        await mkdir(dirname(file('stdout.jsonl')), { recursive: true });
        await writeFile(file('stdout.jsonl'), committed);
        await writeFile(file('workspace.json'), texts.workspace);
        const error: Error = await expect(acp)
          .toMatchAcpSnapshot()
          .then(
            () => new Error('passed'),
            (e: Error) => e,
          );
        const shown = relative(testInfo.config.rootDir, file('stdout.jsonl'));
        const line = committed.split('\n').findIndex((l) => l.includes('goodbye')) + 1;
        expect(error.message.split('\n')).toEqual([
          `${shown} differs at line ${line}, /params/update/content/text:`,
          expect.stringContaining('[-goodbye-]{+hello+}'),
          `If the change is intended, accept it: npx playwright test --update-snapshots -g '${testInfo.title}' (the diffs are attached).`,
        ]);
        expect(testInfo.attachments.map((a) => a.name)).toEqual([
          `${dir}/stdout.jsonl.diff`,
          'conversation.html',
          'conversation.txt',
        ]);
        expect(String(testInfo.attachments[0]!.body)).toContain('+{"jsonrpc"');
        // The side-by-side view, whatever suffix the snapshot path template adds to the file name.
        expect(String(testInfo.attachments[1]!.body)).toContain(`${testInfo.title}: expected and actual`);
        expect(await readFile(file('stdout.jsonl'), 'utf8')).toBe(committed);
        // The same run against the snapshot it makes passes.
        await writeFile(file('stdout.jsonl'), texts.stdout);
        await expect(acp).toMatchAcpSnapshot();
      } finally {
        await rm(dirname(file('stdout.jsonl')), { recursive: true, force: true });
      }
    },
  );
});
