/** Sidecars: referenced ones exist, every file is referenced, named by its content hash, no duplicates. */

import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sidecarHash } from '@acp-snapshot/core';
import { type GuardContext, readText, SIDECAR_NAME, walkFiles } from './guard-context.js';

export async function checkSidecars(ctx: GuardContext): Promise<void> {
  const { sidecarsDir, show, add, referenced } = ctx;
  const sidecarFiles = await walkFiles(sidecarsDir);
  const byContent = new Map<string, string>();
  for (const file of sidecarFiles) {
    const base = relative(sidecarsDir, file);
    if (!SIDECAR_NAME.test(base)) {
      add('unknown-files', `${show(file)}: unknown file (fixtures/sidecars/ holds <sha256>.json files only)`);
      continue;
    }
    const { text, notUtf8 } = await readText(
      file,
      show(file),
      'refresh or re-record the scenario that references it',
    );
    if (notUtf8) add('sidecars', notUtf8);
    const hash = sidecarHash(text);
    const prior = byContent.get(hash);
    if (prior) {
      add(
        'sidecars',
        `${show(file)}: duplicate of ${show(prior)} (same content; keep the file named by its sha256)`,
      );
    } else byContent.set(hash, file);
    if (`${hash}.json` !== base) {
      add(
        'sidecars',
        `${show(file)}: name does not match its content's sha256 (${hash}); re-record or refresh to rewrite it`,
      );
    }
    if (!referenced.has(base.slice(0, -'.json'.length))) {
      add('sidecars', `${show(file)}: not referenced by any session fixture (delete it)`);
    }
  }
  for (const [ref, files] of [...referenced.entries()].sort()) {
    if (!existsSync(join(sidecarsDir, `${ref}.json`))) {
      for (const f of files) {
        add(
          'sidecars',
          `${show(f)}: references sidecar ${show(join(sidecarsDir, `${ref}.json`))}, which does not exist (refresh or re-record the scenario)`,
        );
      }
    }
  }
}
