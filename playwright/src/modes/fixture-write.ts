/** Writing a scenario's fixtures and sidecars, scrubbed, as record and refresh do. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Secrets, scrub } from '@acp-snapshot/model-http';

/** A scenario's fixture files as written by record and refresh. */
export interface ScenarioFixtureWrite {
  dir: string;
  sidecarsDir: string;
  sessionText: string;
  stdoutText: string;
  /** workspace.expected.json (see workspace.ts). */
  workspaceText: string;
  sidecars: Record<string, string>;
}

/**
 * Writes session.jsonl, stdout.expected.jsonl and workspace.expected.json (scrubbed) and each sidecar once: an existing
 * sidecar is left as is (its name is the hash of its content), so each distinct prompt or tool set
 * is committed once. Returns the sidecar files newly written.
 */
export async function writeScenarioFixtures(w: ScenarioFixtureWrite, secrets: Secrets): Promise<string[]> {
  await mkdir(w.dir, { recursive: true });
  await mkdir(w.sidecarsDir, { recursive: true });
  const written: string[] = [];
  for (const [hash, content] of Object.entries(w.sidecars).sort()) {
    const file = join(w.sidecarsDir, `${hash}.json`);
    const existing = await readFile(file, 'utf8').catch(() => undefined);
    if (existing === undefined) {
      const clean = scrub(content, secrets);
      if (clean !== content) {
        throw new Error(
          `sidecar ${hash} holds a secret (API key, home path or user name); the agent put it into its prompt or tool schemas. Fix that, then record again.`,
        );
      }
      await writeFile(file, content, { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
      written.push(file);
    }
  }
  await writeFile(join(w.dir, 'session.jsonl'), scrub(w.sessionText, secrets));
  await writeFile(join(w.dir, 'stdout.expected.jsonl'), scrub(w.stdoutText, secrets));
  await writeFile(join(w.dir, 'workspace.expected.json'), scrub(w.workspaceText, secrets));
  return written;
}
