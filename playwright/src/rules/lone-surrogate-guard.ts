/**
 * The guard rule `lone-surrogates`: no committed fixture text holds half of a UTF-16 surrogate pair, as a
 * `\udXXX` escape without its pair or decoded. Such a recording snapshots an agent bug (text cut inside an
 * emoji) that strict JSON parsers (serde_json, so Rust ACP clients) choke on, and replay would keep it green.
 */

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findLoneSurrogate, loneSurrogateMessage, recordCommand, refreshCommand } from '@acp-snapshot/core';

/** How each checked scenario file is fixed: recorded ones are rewritten, hand-written ones edited. */
function fixFor(file: string, scenario: string): string {
  const handWritten =
    'edit it: write the whole character (both escapes of the pair, e.g. \\ud83d\\ude00) or drop the half';
  switch (file) {
    case 'input.json':
    case 'replay.override.json':
      return handWritten;
    case 'source.raw.jsonl':
      return `fix the agent, then re-record: ${recordCommand(scenario)}`;
    default:
      return (
        `fix the agent (it cut a text inside a character), then refresh: ${refreshCommand(scenario)} ` +
        `(re-record with ${recordCommand(scenario)} if the recorded model text holds it)`
      );
  }
}

const SCENARIO_TEXTS = [
  'input.json',
  'stdout.expected.jsonl',
  'session.jsonl',
  'replay.override.json',
  'source.raw.jsonl',
];

/**
 * One message per fixture text holding a lone surrogate (the first in each file), naming `file:line`, the
 * column and the fix. Workspace seeds are the scenario's data, not protocol text, and are not checked.
 */
export async function loneSurrogateProblems(
  fixturesDir: string,
  show: (path: string) => string,
): Promise<string[]> {
  const files: Array<{ path: string; fix: string }> = [];
  const scenarios = join(fixturesDir, 'scenarios');
  const entries = await readdir(scenarios, { withFileTypes: true }).catch(() => []);
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory()) continue;
    const names = new Set(await readdir(join(scenarios, e.name)));
    for (const f of SCENARIO_TEXTS)
      if (names.has(f)) files.push({ path: join(scenarios, e.name, f), fix: fixFor(f, e.name) });
  }
  const sidecars = join(fixturesDir, 'sidecars');
  for (const f of (await readdir(sidecars).catch(() => [])).sort()) {
    if (f.endsWith('.json'))
      files.push({
        path: join(sidecars, f),
        fix: `fix the agent prompt or tool description it came from, then refresh: ${refreshCommand()}`,
      });
  }
  const out: string[] = [];
  for (const { path, fix } of files) {
    const lone = findLoneSurrogate(await readFile(path, 'utf8'));
    if (lone) out.push(loneSurrogateMessage(`${show(path)}:${lone.line}`, lone, fix));
  }
  return out;
}
