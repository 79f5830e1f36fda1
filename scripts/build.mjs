// Bundles the runnable parts (the agent, its plugins, the packages they load at run time) with esbuild.
// session-log is external everywhere so the agent and every plugin share one copy of it at run time.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entries = [
  { in: 'session-log/src/index.ts', out: 'session-log/dist/index.js' },
  { in: 'replay-plugin/src/index.ts', out: 'replay-plugin/dist/index.js' },
  { in: 'model-http/src/index.ts', out: 'model-http/dist/index.js' },
  { in: 'agent/src/llm/openai-compatible.ts', out: 'agent/dist/plugins/openai-compatible.js' },
  { in: 'agent/src/main.ts', out: 'agent/dist/main.js', banner: '#!/usr/bin/env node' },
  // The harness package: self-contained (installed elsewhere, it finds none of this repository's packages);
  // only Playwright, which the user's project installs, stays outside.
  {
    in: 'harness/src/index.ts',
    out: 'harness/dist/index.js',
    external: ['@playwright/test', '@playwright/test/*', 'playwright', 'playwright-core'],
    // From source: the package's dist is itself a bundle with its own `require` shim.
    alias: { '@acp-snapshot/session-log': join(root, 'session-log/src/index.ts') },
  },
];

const started = Date.now();
await Promise.all(
  entries
    .filter((e) => existsSync(join(root, e.in)))
    .map((e) =>
      build({
        entryPoints: [join(root, e.in)],
        outfile: join(root, e.out),
        // Written in memory, then renamed into place: an agent process starting during a rebuild
        // (a concurrent test run) must see the old bundle or the new one, never half a file.
        write: false,
        bundle: true,
        minifyWhitespace: true,
        minifySyntax: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        sourcemap: 'linked',
        logLevel: 'warning',
        // zod is shared too: bundling it into every bundle made the agent evaluate it three times at start-up.
        ...(e.alias ? { alias: e.alias } : {}),
        external: e.external ?? [
          '@acp-snapshot/session-log',
          '@acp-snapshot/llm-replay',
          './plugins/*',
          'zod',
        ],
        // Bundled CommonJS dependencies still call require(); give them one.
        banner: {
          js: `${e.banner ? `${e.banner}\n` : ''}import { createRequire as __acpCreateRequire } from 'node:module'; const require = __acpCreateRequire(import.meta.url);`,
        },
      }).then((result) => {
        for (const file of result.outputFiles) {
          mkdirSync(dirname(file.path), { recursive: true });
          const tmp = `${file.path}.${process.pid}.tmp`;
          writeFileSync(tmp, file.contents);
          renameSync(tmp, file.path);
        }
      }),
    ),
);
if (process.env.ACP_SNAPSHOT_BUILD_QUIET !== '1')
  console.error(`build: ${entries.length} bundles in ${Date.now() - started} ms`);
