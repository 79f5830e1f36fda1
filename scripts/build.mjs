// Bundles the runnable parts (the agent, its plugins, the packages they load at run time) with esbuild.
// core and session-log are external everywhere so the agent and every plugin share one copy of each at run time.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Only Playwright stays outside the harness bundle (the user's project installs it). zod is bundled: loaded
// as its own ~100 ES modules it cost every Playwright worker ~90 ms at start (decision 0031). (Bundled beside the
// ACP SDK's schemas it once broke the package at import, "Class2 is not a constructor"; scripts/build.test.ts
// imports the bundle.)
const HARNESS_EXTERNAL = ['@playwright/test', '@playwright/test/*', 'playwright', 'playwright-core'];
// Bundles that Playwright loads into its runner and every worker. Playwright maps the caller's stack frame of
// `test.extend()` through the bundle's source map at import, and parsing a linked 1.5 MB map cost ~200 ms of
// every worker start (decision 0031). So these keep their lines (a stack frame names a readable line of the
// bundle) and write the map beside them without linking it.
const LOADED_BY_PLAYWRIGHT = { sourcemap: 'external', minifyWhitespace: false };
// From source: the packages' dist are bundles themselves (built in parallel with these).
const HARNESS_ALIAS = {
  '@acp-snapshot/core': join(root, 'core/src/index.ts'),
  '@acp-snapshot/session-log': join(root, 'session-log/src/index.ts'),
  '@acp-snapshot/emulator': join(root, 'emulator/src/index.ts'),
  '@acp-snapshot/model-http': join(root, 'model-http/src/index.ts'),
  '@acp-snapshot/conformance': join(root, 'conformance/src/index.ts'),
  // The process spawn alone (the driver's), without the kit (esbuild takes the exact key before the prefix).
  '@acp-snapshot/conformance/process': join(root, 'conformance/src/process.ts'),
};
/** How the agent is bundled (shared with the SDK floor of the agent bench). */
const AGENT_BUNDLE = {
  splitting: true,
  external: [],
  alias: {
    '@acp-snapshot/core': join(root, 'core/src/index.ts'),
    '@acp-snapshot/session-log': join(root, 'session-log/src/index.ts'),
    '@acp-snapshot/llm-replay': join(root, 'llm-replay/src/index.ts'),
  },
};
const entries = [
  { in: 'core/src/index.ts', out: 'core/dist/index.js' },
  { in: 'session-log/src/index.ts', out: 'session-log/dist/index.js' },
  { in: 'llm-replay/src/index.ts', out: 'llm-replay/dist/index.js' },
  // The agent and its bundled plugins: one build with code splitting, so the ACP SDK, zod and session-log
  // are one copy in shared chunks (one module each to load, not zod's ~70 files from node_modules), and a
  // mode loads only its own plugin (replay never loads `openai`, record never loads the replay code).
  {
    in: {
      main: 'agent/src/main.ts',
      'plugins/openai-compatible': 'agent/src/llm/openai-compatible.ts',
    },
    outdir: 'agent/dist',
    banner: '#!/usr/bin/env node',
    ...AGENT_BUNDLE,
  },
  // The agent bench's "SDK floor": a minimal agent on the same SDK, bundled exactly like the agent.
  {
    in: { agent: 'scripts/bench/sdk-floor/agent.ts' },
    outdir: 'scripts/bench/sdk-floor/dist',
    ...AGENT_BUNDLE,
  },
  { in: 'emulator/src/index.ts', out: 'emulator/dist/index.js' },
  { in: 'emulator/src/cli.ts', out: 'emulator/dist/cli.js', banner: '#!/usr/bin/env node' },
  { in: 'model-http/src/index.ts', out: 'model-http/dist/index.js' },
  // The conformance kit as this repository's suite loads it; the harness inlines it from source (HARNESS_ALIAS).
  {
    in: 'conformance/src/index.ts',
    out: 'conformance/dist/index.js',
    // The emulator's dist is a bundle itself: imported at run time, not bundled again.
    external: ['@acp-snapshot/core', '@acp-snapshot/session-log', '@acp-snapshot/emulator', 'zod'],
  },
  { in: 'conformance/src/process.ts', out: 'conformance/dist/process.js' },
  // The harness package: self-contained (installed elsewhere, it finds none of this repository's packages);
  // only Playwright, which the user's project installs, stays outside.
  {
    in: 'playwright/src/index.ts',
    out: 'playwright/dist/index.js',
    external: HARNESS_EXTERNAL,
    // From source: the package's dist is itself a bundle with its own `require` shim.
    alias: HARNESS_ALIAS,
    ...LOADED_BY_PLAYWRIGHT,
  },
  // The coverage teardown's spec, run by Playwright from the package (config.ts's coverageProject).
  {
    in: 'playwright/src/coverage/acp-coverage.spec.ts',
    out: 'playwright/dist/coverage/acp-coverage.spec.js',
    external: HARNESS_EXTERNAL,
    alias: HARNESS_ALIAS,
    ...LOADED_BY_PLAYWRIGHT,
  },
  // The test MCP server the agent under test starts from session/new (mcpServers): a process of its own,
  // self-contained the same way, found beside the harness bundle.
  {
    in: 'playwright/src/mcp/mcp-test-server.ts',
    out: 'playwright/dist/mcp-test-server.js',
    external: HARNESS_EXTERNAL,
    alias: HARNESS_ALIAS,
  },
  // Its command line (`acp-snapshot init|record|refresh|check|review|conformance`), self-contained the same way.
  {
    in: 'playwright/src/cli/main.ts',
    out: 'playwright/dist/cli.js',
    banner: '#!/usr/bin/env node',
    // migrate-config is a bundle of its own (it holds the TypeScript compiler, 3 MB every other command
    // would parse at start); cli.js imports it from beside itself.
    external: [...HARNESS_EXTERNAL, './migrate-config.js'],
    alias: HARNESS_ALIAS,
  },
  {
    in: 'playwright/src/cli/migrate-config.ts',
    out: 'playwright/dist/migrate-config.js',
    // The TypeScript compiler reads __filename (a CommonJS global) as it loads.
    banner:
      "import { fileURLToPath as __acpFileURLToPath } from 'node:url'; const __filename = __acpFileURLToPath(import.meta.url);",
    external: HARNESS_EXTERNAL,
    alias: HARNESS_ALIAS,
  },
];

const chunkFirst = (path) => (path.includes('/chunks/') ? 0 : 1);

/** Removes chunks of earlier builds, once no agent started before this build can still be loading them. */
function removeStaleChunks(dir, current) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (!current.has(path) && Date.now() - statSync(path).mtimeMs > 10 * 60_000)
      rmSync(path, { force: true });
  }
}

const started = Date.now();
const sources = (e) => (typeof e.in === 'string' ? [e.in] : Object.values(e.in));
await Promise.all(
  entries
    .filter((e) => sources(e).every((s) => existsSync(join(root, s))))
    .map((e) =>
      build({
        ...(typeof e.in === 'string'
          ? { entryPoints: [join(root, e.in)], outfile: join(root, e.out) }
          : {
              entryPoints: Object.fromEntries(Object.entries(e.in).map(([k, v]) => [k, join(root, v)])),
              outdir: join(root, e.outdir),
              splitting: e.splitting,
              // Content-hashed: an agent still running the previous main.js finds the chunks it imports.
              chunkNames: 'chunks/[name]-[hash]',
            }),
        // Written in memory, then renamed into place: an agent process starting during a rebuild
        // (a concurrent test run) must see the old bundle or the new one, never half a file.
        write: false,
        bundle: true,
        minifyWhitespace: e.minifyWhitespace ?? true,
        minifySyntax: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        sourcemap: e.sourcemap ?? 'linked',
        logLevel: 'warning',
        // zod is shared too: bundling it into every bundle made the agent evaluate it three times at start-up.
        ...(e.alias ? { alias: e.alias } : {}),
        external: e.external ?? [
          '@acp-snapshot/core',
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
        // Chunks before the entries that import them.
        const files = [...result.outputFiles].sort((a, b) => chunkFirst(a.path) - chunkFirst(b.path));
        for (const file of files) {
          mkdirSync(dirname(file.path), { recursive: true });
          const tmp = `${file.path}.${process.pid}.tmp`;
          writeFileSync(tmp, file.contents);
          // A bundle with a shebang is a package `bin`: executable, as npm's own install would leave it.
          if (e.banner && file.path.endsWith('.js')) chmodSync(tmp, 0o755);
          renameSync(tmp, file.path);
        }
        if (e.outdir) removeStaleChunks(join(root, e.outdir, 'chunks'), new Set(files.map((f) => f.path)));
      }),
    ),
);
if (process.env.ACP_SNAPSHOT_BUILD_QUIET !== '1')
  console.error(`build: ${entries.length} bundles in ${Date.now() - started} ms`);
