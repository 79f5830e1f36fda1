// `migrate-config [FILE] [--dry-run]`: rewrites the normalization rules of a Playwright config from the earlier
// spelling (`{ path: 'prompt_cache_key', name: 'cacheKey' }`) to the one spelling, in place, keeping the rest of
// the file as it is; `--dry-run` prints the diff and writes nothing. Exit codes: 0 rewritten (or nothing to
// rewrite), 1 a rule it cannot rewrite (nothing written), 2 a usage error or a missing file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';

const USAGE =
  'usage: npx acp-snapshot migrate-config [FILE] [--dry-run]   (FILE: default playwright.config.ts)';
const CONFIG_NAMES = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].map((ext) => `playwright.config.${ext}`);

async function main(args: string[]): Promise<number> {
  const dryRun = args.includes('--dry-run');
  const unknown = args.filter((a) => a.startsWith('-') && a !== '--dry-run');
  const files = args.filter((a) => !a.startsWith('-'));
  if (unknown.length > 0 || files.length > 1) {
    console.error(
      `migrate-config: ${unknown.length ? `unknown option ${unknown[0]}` : 'name one file'}\n${USAGE}`,
    );
    return 2;
  }
  const file = files[0] ?? CONFIG_NAMES.find((n) => existsSync(n));
  if (file === undefined) {
    console.error(
      `migrate-config: no playwright.config.* in ${process.cwd()}; run it in your project's directory, or name the file: npx acp-snapshot migrate-config path/to/playwright.config.ts`,
    );
    return 2;
  }
  if (!existsSync(file)) {
    console.error(
      `migrate-config: ${resolve(file)} does not exist; name your Playwright config: npx acp-snapshot migrate-config path/to/playwright.config.ts`,
    );
    return 2;
  }
  const text = readFileSync(file, 'utf8');
  // The compiler loads only once there is a file to parse.
  const { rewriteConfig } = await import('./config-rewrite.js');
  const { text: out, rewritten, problems } = rewriteConfig(text, file);
  if (problems.length > 0) {
    for (const p of problems) console.error(`migrate-config: ${p}`);
    console.error(`migrate-config: ${file} is unchanged (${problems.length} rule(s) it cannot rewrite)`);
    return 1;
  }
  if (rewritten === 0) {
    console.log(`migrate-config: ${file}: no rule in the earlier spelling; nothing to do`);
    return 0;
  }
  if (dryRun) {
    process.stdout.write(createTwoFilesPatch(`a/${file}`, `b/${file}`, text, out));
    console.log(
      `migrate-config: ${rewritten} rule(s) would be rewritten in ${file} (dry run: nothing written)`,
    );
    return 0;
  }
  writeFileSync(file, out);
  console.log(`migrate-config: ${rewritten} rule(s) rewritten in ${file}`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
