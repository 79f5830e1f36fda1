/**
 * The environment for a Playwright runner a test starts (the repository's suite run by its own commands): this
 * process's, without what Playwright set for its own runner and workers. The child is a fresh runner; an outer
 * run's PLAYWRIGHT_JSON_OUTPUT_NAME would send the child's JSON report into the outer run's report file.
 */
export function childRunnerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(TEST_|PW_|PLAYWRIGHT_)/.test(k)) env[k] = v;
  return env;
}
