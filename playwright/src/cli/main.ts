export {};

// `acp-snapshot COMMAND [ARGS]`: the package's command line. Each command is its own module, loaded on
// demand, reading its arguments after the command name; run it from the project root (where the
// Playwright config is).
const COMMANDS: Record<string, { summary: string; load: () => Promise<unknown> }> = {
  init: {
    summary:
      'init --agent NAME | init -- COMMAND...: write playwright.config.ts, starter tests and the npm scripts to record and replay',
    load: () => import('./init.js'),
  },
  record: {
    summary: 'record [NAME...]: run the record project (live model) and write the fixtures',
    load: () => import('./record.js'),
  },
  refresh: {
    summary:
      'refresh [NAME...]: replay the recorded answers through the current code and rewrite the fixtures',
    load: () => import('./refresh.js'),
  },
  check: { summary: 'check: the fixture-tree rules (the guards project)', load: () => import('./check.js') },
  review: {
    summary:
      'review [NAME...] [--base REF] [--allow-nondeterminism]: compare re-recorded fixtures with git, call by call',
    load: () => import('./review.js'),
  },
  coverage: {
    summary:
      'coverage [DIR...] [--json FILE] [--html FILE] [--fail-on-gap]: the ACP protocol coverage of the last run',
    load: () => import('./coverage.js'),
  },
  'migrate-config': {
    summary:
      'migrate-config [FILE] [--dry-run]: rewrite the earlier rule spelling ({ path, name }) in a Playwright config to { path: "/pointer", placeholder }',
    // A bundle of its own (the TypeScript compiler parses the config): the other commands do not load it.
    load: () => import('./migrate-config.js'),
  },
  conformance: {
    summary: 'conformance [--agent CMD...]: the ACP conformance checks against an agent',
    load: () => import('./conformance.js'),
  },
};

const [command, ...rest] = process.argv.slice(2);
const entry = command === undefined ? undefined : COMMANDS[command];
if (!entry) {
  const usage = Object.values(COMMANDS)
    .map((c) => `  acp-snapshot ${c.summary}`)
    .join('\n');
  console.error(
    `${command === undefined ? '' : `acp-snapshot: unknown command ${JSON.stringify(command)}\n`}usage:\n${usage}`,
  );
  process.exitCode = command === undefined || command === '--help' || command === 'help' ? 0 : 2;
} else {
  // The command modules read process.argv.slice(2) as their own arguments.
  process.argv.splice(2, process.argv.length - 2, ...rest);
  await entry.load();
}
